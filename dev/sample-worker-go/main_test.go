package main

import (
	"testing"

	"go.temporal.io/sdk/testsuite"
)

func TestOrderReportsTheWorkerThatRanIt(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestWorkflowEnvironment()
	Workflows(env)
	self := WorkerIdentity{DeploymentName: "ns/sample", BuildID: "b1", Behaviour: "default", Identity: "1@b1"}
	Activities(self)(env)
	env.ExecuteWorkflow("order", 7)
	var got WorkerIdentity
	if err := env.GetWorkflowResult(&got); err != nil || got != self {
		t.Fatalf("order: %+v, %v", got, err)
	}
}
