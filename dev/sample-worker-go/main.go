// The Go sample worker: one workflow and one activity, run from the environment the controller
// injects through the Go worker library, as a user's Go worker would be. Its replay gate is the
// library's (spec.rollout.gate.workflowType: replayGate).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	twcworker "github.com/temporal-worker-controller/temporal-worker-controller/packages/worker-go"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// WorkerIdentity is the build that ran an activity, as the TypeScript sample reports it.
type WorkerIdentity struct {
	DeploymentName string `json:"deploymentName"`
	BuildID        string `json:"buildId"`
	Behaviour      string `json:"behaviour"`
	Identity       string `json:"identity"`
}

// Order completes with the worker that ran it: a short piece of work, pinned to its build.
func Order(ctx workflow.Context, number int) (WorkerIdentity, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: 30 * time.Second})
	var who WorkerIdentity
	err := workflow.ExecuteActivity(ctx, "describeWorker").Get(ctx, &who)
	return who, err
}

// Workflows registers the sample's workflows, on the worker and on the replay gate's replayer.
func Workflows(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(Order, workflow.RegisterOptions{Name: "order", VersioningBehavior: workflow.VersioningBehaviorPinned})
}

// Activities registers describeWorker, which reports this worker's build.
func Activities(self WorkerIdentity) func(worker.ActivityRegistry) {
	return func(r worker.ActivityRegistry) {
		r.RegisterActivityWithOptions(func(context.Context) (WorkerIdentity, error) { return self, nil },
			activity.RegisterOptions{Name: "describeWorker"})
	}
}

func main() {
	env, err := twcworker.ReadEnvironment(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	behaviour := os.Getenv("SAMPLE_BEHAVIOUR")
	if behaviour == "" {
		behaviour = "default"
	}
	err = twcworker.Run(context.Background(), twcworker.Options{
		Workflows: Workflows,
		Activities: Activities(WorkerIdentity{
			DeploymentName: env.DeploymentName,
			BuildID:        env.BuildID,
			Behaviour:      behaviour,
			Identity:       fmt.Sprintf("%d@%s", os.Getpid(), env.BuildID),
		}),
	})
	var envErr *twcworker.EnvError
	if errors.As(err, &envErr) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
