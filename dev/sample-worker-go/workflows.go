// The sample's workflows, the Go twins of dev/sample-worker's: the same types, signal and results,
// so that a test drives either worker the same way. A build started with
// SAMPLE_BEHAVIOUR=pinned-breaking changes its pinned workflows so that their histories do not
// replay (a timer before the first activity), as dev/sample-worker/workflow-variants does.
package main

import (
	"context"
	"time"

	twcworker "github.com/temporal-worker-controller/temporal-worker-controller/packages/worker-go"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// PinnedBreaking is the behaviour whose pinned workflows do not replay the default's histories.
const PinnedBreaking = "pinned-breaking"

// FinishSignal ends pinnedUntilSignalled.
const FinishSignal = "finish"

// WorkerIdentity is the build that ran an activity, as the TypeScript sample reports it.
type WorkerIdentity struct {
	DeploymentName string `json:"deploymentName"`
	BuildID        string `json:"buildId"`
	Behaviour      string `json:"behaviour"`
	Identity       string `json:"identity"`
}

// RunReport is where a pinned workflow started and where it finished.
type RunReport struct {
	StartedOn  WorkerIdentity `json:"startedOn"`
	FinishedOn WorkerIdentity `json:"finishedOn"`
}

type sample struct{ breaking bool }

func (s sample) describeWorker(ctx workflow.Context) (WorkerIdentity, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	var who WorkerIdentity
	err := workflow.ExecuteActivity(ctx, "describeWorker").Get(ctx, &who)
	return who, err
}

// firstStep is where the breaking variant differs: a timer the default's histories do not have.
func (s sample) firstStep(ctx workflow.Context) (WorkerIdentity, error) {
	if s.breaking {
		if err := workflow.Sleep(ctx, time.Millisecond); err != nil {
			return WorkerIdentity{}, err
		}
	}
	return s.describeWorker(ctx)
}

// Order completes with the worker that ran it: a short piece of work, pinned to its build.
func (s sample) Order(ctx workflow.Context, number int) (WorkerIdentity, error) {
	return s.firstStep(ctx)
}

// PinnedUntilSignalled stays on the build it started on until signalled `finish`: what keeps an
// old build draining. Asked to continue as new (the controller's ContinueAsNewRequested), it does
// so onto the current build.
func (s sample) PinnedUntilSignalled(ctx workflow.Context) (*RunReport, error) {
	finished := false
	finish := workflow.GetSignalChannel(ctx, FinishSignal)
	workflow.Go(ctx, func(ctx workflow.Context) {
		finish.Receive(ctx, nil)
		finished = true
	})
	asked := twcworker.ListenForContinueAsNewRequest(ctx)
	startedOn, err := s.firstStep(ctx)
	if err != nil {
		return nil, err
	}
	if err := workflow.Await(ctx, func() bool { return finished || asked() }); err != nil {
		return nil, err
	}
	if !finished {
		return nil, workflow.NewContinueAsNewErrorWithOptions(ctx,
			workflow.ContinueAsNewErrorOptions{InitialVersioningBehavior: workflow.ContinueAsNewVersioningBehaviorAutoUpgrade},
			"pinnedUntilSignalled")
	}
	finishedOn, err := s.describeWorker(ctx)
	if err != nil {
		return nil, err
	}
	return &RunReport{StartedOn: startedOn, FinishedOn: finishedOn}, nil
}

// Workflows registers the workflows of a build of this behaviour, on the worker and on the
// replayers of the library's replay gate and check.
func Workflows(behaviour string) func(worker.WorkflowRegistry) {
	s := sample{breaking: behaviour == PinnedBreaking}
	pinned := workflow.RegisterOptions{VersioningBehavior: workflow.VersioningBehaviorPinned}
	return func(r worker.WorkflowRegistry) {
		r.RegisterWorkflowWithOptions(s.Order, named(pinned, "order"))
		r.RegisterWorkflowWithOptions(s.PinnedUntilSignalled, named(pinned, "pinnedUntilSignalled"))
	}
}

func named(options workflow.RegisterOptions, name string) workflow.RegisterOptions {
	options.Name = name
	return options
}

// Activities registers describeWorker, which reports this worker's build.
func Activities(self WorkerIdentity) func(worker.ActivityRegistry) {
	return func(r worker.ActivityRegistry) {
		r.RegisterActivityWithOptions(func(context.Context) (WorkerIdentity, error) { return self, nil },
			activity.RegisterOptions{Name: "describeWorker"})
	}
}
