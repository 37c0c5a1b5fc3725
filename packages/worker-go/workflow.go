package twcworker

// The replay gate workflow and the request to continue as new, as the controller knows them from
// the TypeScript library (packages/worker/src/workflow.ts): the same workflow type, activity name,
// signal name, input and output (as JSON), failure types and messages.

import (
	"fmt"
	"time"

	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/workflow"
)

const (
	// ReplayGateWorkflow is the gate's workflow type (spec.rollout.gate.workflowType: replayGate).
	ReplayGateWorkflow = "replayGate"
	// ReplayGateActivity is the activity the gate calls on its own build's worker.
	ReplayGateActivity = "replayRecentHistories"
	// ContinueAsNewRequested is the controller's default spec.sunset.pinnedWorkflows.signalName.
	ContinueAsNewRequested = "ContinueAsNewRequested"
	// NondeterministicChange is the failure type of a gate that found a history that does not replay.
	NondeterministicChange = "NondeterministicChange"
	// InvalidGateInput is the failure type of a gate whose input names an unknown behaviour.
	InvalidGateInput = "InvalidGateInput"
)

// The versioning behaviours as visibility has them (TemporalWorkflowVersioningBehavior).
const (
	BehaviorAutoUpgrade = "AutoUpgrade"
	BehaviorPinned      = "Pinned"
)

// ReplayGateInput is the gate's input, as the controller sends it (JSON).
type ReplayGateInput struct {
	// How many workflows of the current build to replay at most (default 20): running ones
	// first, newest first, then closed ones.
	Workflows *int `json:"workflows,omitempty"`
	// Closed workflows only if they closed within this many hours (default 24); running ones
	// whatever their age.
	MaxAgeHours *float64 `json:"maxAgeHours,omitempty"`
	// The versioning behaviours whose workflows are replayed (default [AutoUpgrade]): a pinned
	// workflow never runs on another build. Add Pinned to hold pinned workflows to the new code too.
	Behaviors []string `json:"behaviors"`
}

// Divergence is a workflow whose history this build's code does not replay as it ran.
type Divergence struct {
	WorkflowID   string `json:"workflowId"`
	RunID        string `json:"runId"`
	WorkflowType string `json:"workflowType"`
	// Event is the first event that diverged, as `<id> <type>`, where the SDK's error names it.
	Event   string `json:"event,omitempty"`
	Message string `json:"message"`
}

// ReplayOutcome is what the gate did.
type ReplayOutcome struct {
	// CurrentBuildID is the build whose workflows were replayed; empty when no build is current.
	CurrentBuildID string       `json:"currentBuildId,omitempty"`
	Replayed       int          `json:"replayed"`
	Divergences    []Divergence `json:"divergences"`
}

// ReplayGate is the rollout gate (spec.rollout.gate.workflowType: replayGate): replays the
// histories of the current build's auto-upgrade workflows (or of the behaviours its input names),
// running ones first, against this build's workflow code, and fails, naming each workflow, its
// type and the first event that diverged, if any does not replay. Registered pinned by
// RegisterReplayGate.
func ReplayGate(ctx workflow.Context, input *ReplayGateInput) (*ReplayOutcome, error) {
	if input == nil {
		input = &ReplayGateInput{}
	}
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	var outcome ReplayOutcome
	if err := workflow.ExecuteActivity(ctx, ReplayGateActivity, input).Get(ctx, &outcome); err != nil {
		return nil, err
	}
	if outcome.Divergences == nil {
		outcome.Divergences = []Divergence{}
	}
	if len(outcome.Divergences) > 0 {
		return nil, temporal.NewNonRetryableApplicationError(GateFailureMessage(&outcome), NondeterministicChange, nil, &outcome)
	}
	return &outcome, nil
}

// GateFailureMessage is the gate's failure message, word for word the TypeScript library's:
// `workflow checkout-17 (checkout) of build v41 does not replay on this build at event 5
// ActivityTaskScheduled: <the SDK's words>; and 2 more of 9 replayed`.
func GateFailureMessage(outcome *ReplayOutcome) string {
	first := outcome.Divergences[0]
	where := ""
	if first.Event != "" {
		where = " at event " + first.Event
	}
	build := outcome.CurrentBuildID
	if build == "" {
		build = "?"
	}
	message := fmt.Sprintf("workflow %s (%s) of build %s does not replay on this build%s: %s", first.WorkflowID, first.WorkflowType, build, where, first.Message)
	if more := len(outcome.Divergences) - 1; more > 0 {
		message += fmt.Sprintf("; and %d more of %d replayed", more, outcome.Replayed)
	}
	return message
}

// ListenForContinueAsNewRequest sets the handler of the controller's request to continue as new
// onto the current build (spec.sunset.pinnedWorkflows) and returns whether it came. Await it with
// workflow.Await, then continue as new with the versioning behaviour AutoUpgrade
// (workflow.ContinueAsNewErrorOptions{InitialVersioningBehavior:
// workflow.ContinueAsNewVersioningBehaviorAutoUpgrade}) so that the next run starts on the
// current build.
func ListenForContinueAsNewRequest(ctx workflow.Context) func() bool {
	requested := false
	signals := workflow.GetSignalChannel(ctx, ContinueAsNewRequested)
	workflow.Go(ctx, func(ctx workflow.Context) {
		signals.Receive(ctx, nil)
		requested = true
	})
	return func() bool { return requested }
}
