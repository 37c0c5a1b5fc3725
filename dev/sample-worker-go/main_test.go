package main

import (
	"errors"
	"testing"
	"time"

	twcworker "github.com/temporal-worker-controller/temporal-worker-controller/packages/worker-go"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"
)

var self = WorkerIdentity{DeploymentName: "ns/sample", BuildID: "b1", Behaviour: "default", Identity: "1@b1"}

func environment(behaviour string) *testsuite.TestWorkflowEnvironment {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	Workflows(behaviour)(env)
	Activities(self)(env)
	return env
}

func TestOrderReportsTheWorkerThatRanIt(t *testing.T) {
	for _, behaviour := range []string{"default", PinnedBreaking} {
		env := environment(behaviour)
		env.ExecuteWorkflow("order", 7)
		var got WorkerIdentity
		if err := env.GetWorkflowResult(&got); err != nil || got != self {
			t.Fatalf("%s: order: %+v, %v", behaviour, got, err)
		}
	}
}

func TestPinnedUntilSignalledFinishesWhenSignalled(t *testing.T) {
	env := environment("default")
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(FinishSignal, nil) }, time.Hour)
	env.ExecuteWorkflow("pinnedUntilSignalled")
	var got RunReport
	if err := env.GetWorkflowResult(&got); err != nil || got != (RunReport{StartedOn: self, FinishedOn: self}) {
		t.Fatalf("pinnedUntilSignalled: %+v, %v", got, err)
	}
}

func TestPinnedUntilSignalledContinuesAsNewOntoTheCurrentBuildWhenAsked(t *testing.T) {
	env := environment("default")
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(twcworker.ContinueAsNewRequested, nil) }, time.Hour)
	env.ExecuteWorkflow("pinnedUntilSignalled")
	var continued *workflow.ContinueAsNewError
	if !errors.As(env.GetWorkflowError(), &continued) {
		t.Fatalf("expected a continue-as-new, got %v", env.GetWorkflowError())
	}
	if continued.WorkflowType.Name != "pinnedUntilSignalled" ||
		continued.InitialVersioningBehavior != workflow.ContinueAsNewVersioningBehaviorAutoUpgrade {
		t.Fatalf("continued as %s with %v, expected pinnedUntilSignalled onto the current build", continued.WorkflowType.Name, continued.InitialVersioningBehavior)
	}
}
