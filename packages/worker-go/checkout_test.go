package twcworker

// A workflow of three builds, for the replay tests: v1 (whose histories testdata/ holds), a v2
// that changed compatibly (behind workflow.GetVersion) and a v2 that did not (a timer before the
// activity).

import (
	"context"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

const checkoutType = "checkout"

func chargeActivity(_ context.Context, ms int) (string, error) {
	time.Sleep(time.Duration(ms) * time.Millisecond)
	return "charged", nil
}

func registerCharge(r worker.ActivityRegistry) {
	r.RegisterActivityWithOptions(chargeActivity, activity.RegisterOptions{Name: "charge"})
}

// checkout charges (for ms milliseconds), then waits for the signal finish.
func checkoutV1(ctx workflow.Context, ms int) (string, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{StartToCloseTimeout: time.Minute})
	var charged string
	if err := workflow.ExecuteActivity(ctx, "charge", ms).Get(ctx, &charged); err != nil {
		return "", err
	}
	workflow.GetSignalChannel(ctx, "finish").Receive(ctx, nil)
	return charged, nil
}

// checkoutCompatible sends a receipt after the signal, for new runs only.
func checkoutCompatible(ctx workflow.Context, ms int) (string, error) {
	charged, err := checkoutV1(ctx, ms)
	if err != nil {
		return "", err
	}
	if workflow.GetVersion(ctx, "receipt", workflow.DefaultVersion, 1) == 1 {
		_ = workflow.Sleep(ctx, time.Millisecond)
	}
	return charged, nil
}

// checkoutBreaking waits before charging: a timer where v1's histories have the activity.
func checkoutBreaking(ctx workflow.Context, ms int) (string, error) {
	if err := workflow.Sleep(ctx, time.Second); err != nil {
		return "", err
	}
	return checkoutV1(ctx, ms)
}

func checkoutWorkflows(fn func(workflow.Context, int) (string, error)) func(worker.WorkflowRegistry) {
	return func(r worker.WorkflowRegistry) {
		r.RegisterWorkflowWithOptions(fn, workflow.RegisterOptions{Name: checkoutType, VersioningBehavior: workflow.VersioningBehaviorAutoUpgrade})
	}
}
