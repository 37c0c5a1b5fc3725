package twcworker

// The replay check: which of the runs it is given (pinned workflows of an older build) this build's
// workflow code replays as they ran. Its workflow runs pinned to the build that would take them
// over; its activity, on that build's worker, fetches their histories and replays them
// (CheckCompatibility). As the TypeScript library's (packages/worker/src/replay-check.ts): the
// same workflow type, activity name, input, outcome (as JSON), failure types and messages.

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

const (
	// ReplayCheckWorkflow is the check's workflow type.
	ReplayCheckWorkflow = "replayCheck"
	// ReplayCheckActivity is the activity the check calls on its own build's worker.
	ReplayCheckActivity = "replayHistories"
	// InvalidCheckInput is the failure type of a check whose input is not a bounded list of runs.
	InvalidCheckInput = "InvalidCheckInput"
	// MaxCheckedWorkflows bounds the runs of one check: more would make the outcome too large for
	// Temporal's payload limit, and the check too long for its activity's timeout.
	MaxCheckedWorkflows = 1000
	// Temporal warns of a history past 10 MiB; the check holds each in memory until it replays them all.
	defaultMaxHistoryBytes = 10 * 1024 * 1024
)

// WorkflowRun is a run of a workflow, as Temporal names it.
type WorkflowRun struct {
	WorkflowID string `json:"workflowId"`
	RunID      string `json:"runId"`
}

// ReplayCheckInput is the check's input (JSON).
type ReplayCheckInput struct {
	// Workflows are the runs to replay on this build's code (at most MaxCheckedWorkflows).
	Workflows []WorkflowRun `json:"workflows"`
	// MaxHistoryBytes: a larger history is not replayed, and said skipped (default 10 MiB).
	MaxHistoryBytes *int64 `json:"maxHistoryBytes,omitempty"`
}

// ReplayCheckResult is what the check found of one run.
type ReplayCheckResult struct {
	WorkflowID string `json:"workflowId"`
	RunID      string `json:"runId"`
	// WorkflowType is empty when the run was not found.
	WorkflowType string `json:"workflowType,omitempty"`
	// Replays says whether its history replays cleanly on this build's code.
	Replays bool `json:"replays"`
	// Event is the first event that diverged, as `<id> <type>`, where the SDK's error names it.
	Event string `json:"event,omitempty"`
	// Message is why it does not replay, in the SDK's words.
	Message string `json:"message,omitempty"`
	// Skipped is why it was not replayed (gone from Temporal, too large); such a run does not replay.
	Skipped string `json:"skipped,omitempty"`
}

// ReplayCheckOutcome is the check's answer: one result per run asked, in order.
type ReplayCheckOutcome struct {
	Results []ReplayCheckResult `json:"results"`
}

// ReplayCheck says which of the given runs this build's code replays as they ran, and of the
// others the first event that diverged and why. It does not fail on a divergence: the outcome is
// the answer. Registered pinned by RegisterReplayCheck.
func ReplayCheck(ctx workflow.Context, input *ReplayCheckInput) (*ReplayCheckOutcome, error) {
	ctx = workflow.WithActivityOptions(ctx, workflow.ActivityOptions{
		StartToCloseTimeout: 10 * time.Minute,
		RetryPolicy:         &temporal.RetryPolicy{MaximumAttempts: 3},
	})
	var outcome ReplayCheckOutcome
	if err := workflow.ExecuteActivity(ctx, ReplayCheckActivity, input).Get(ctx, &outcome); err != nil {
		return nil, err
	}
	return &outcome, nil
}

// RegisterReplayCheck registers the check's workflow (pinned) and its activity on the worker;
// options.Workflows are the workflows the histories are replayed against.
func RegisterReplayCheck(r Registry, options ReplayGateOptions) {
	registerReplayCheckWorkflow(r)
	check := &replayCheck{source: &clientSource{client: options.Client, namespace: options.Namespace}, options: options}
	r.RegisterActivityWithOptions(check.replayHistories, activity.RegisterOptions{Name: ReplayCheckActivity})
}

func registerReplayCheckWorkflow(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(ReplayCheck, workflow.RegisterOptions{
		Name:               ReplayCheckWorkflow,
		VersioningBehavior: workflow.VersioningBehaviorPinned,
	})
}

type replayCheck struct {
	source  gateSource
	options ReplayGateOptions
}

func (c *replayCheck) replayHistories(ctx context.Context, input *ReplayCheckInput) (*ReplayCheckOutcome, error) {
	if err := refuseCheckInput(input); err != nil {
		return nil, err
	}
	if err := refuseAnotherBuild(ctx, c.source, c.options.BuildID, "the replay check"); err != nil {
		return nil, err
	}
	maxBytes := int64(defaultMaxHistoryBytes)
	if input.MaxHistoryBytes != nil {
		maxBytes = *input.MaxHistoryBytes
	}
	outcome := &ReplayCheckOutcome{Results: make([]ReplayCheckResult, 0, len(input.Workflows))}
	var histories []WorkflowHistory
	var replayed []int // of each history, its result's index
	// One at a time: a check of many runs must not take the namespace's whole read limit at once.
	for _, r := range input.Workflows {
		result := ReplayCheckResult{WorkflowID: r.WorkflowID, RunID: r.RunID}
		workflowType, size, found, err := c.source.describe(ctx, r.WorkflowID, r.RunID)
		switch {
		case err != nil:
			return nil, fmt.Errorf("describing workflow %s run %s: %w", r.WorkflowID, r.RunID, err)
		case !found:
			result.Skipped = "Temporal no longer has this run"
		case size > maxBytes:
			result.WorkflowType = workflowType
			result.Skipped = fmt.Sprintf("its history is %d bytes, more than maxHistoryBytes (%d)", size, maxBytes)
		default:
			h, err := c.source.history(ctx, r.WorkflowID, r.RunID)
			if err != nil {
				return nil, fmt.Errorf("fetching the history of workflow %s run %s: %w", r.WorkflowID, r.RunID, err)
			}
			result.WorkflowType = workflowType
			histories = append(histories, WorkflowHistory{WorkflowID: r.WorkflowID, RunID: r.RunID, WorkflowType: workflowType, History: h})
			replayed = append(replayed, len(outcome.Results))
			activity.RecordHeartbeat(ctx, len(histories))
		}
		outcome.Results = append(outcome.Results, result)
	}
	results, err := CheckCompatibility(histories, c.options.Workflows, nil)
	if err != nil {
		return nil, err
	}
	for i, r := range results {
		result := &outcome.Results[replayed[i]]
		result.Replays = r.Replays()
		if d := r.Divergence; d != nil {
			result.Event, result.Message = d.Event, d.Message
		}
	}
	return outcome, nil
}

func refuseCheckInput(input *ReplayCheckInput) error {
	refuse := func(why string) error { return temporal.NewNonRetryableApplicationError(why, InvalidCheckInput, nil) }
	if input == nil || input.Workflows == nil {
		return refuse("workflows: a list of { workflowId, runId } is required")
	}
	if n := len(input.Workflows); n > MaxCheckedWorkflows {
		return refuse(fmt.Sprintf("workflows: %d runs, at most %d a check", n, MaxCheckedWorkflows))
	}
	for i, r := range input.Workflows {
		if r.WorkflowID == "" || r.RunID == "" {
			return refuse(fmt.Sprintf("workflows[%d]: workflowId and runId are required", i))
		}
	}
	if input.MaxHistoryBytes != nil && *input.MaxHistoryBytes <= 0 {
		return refuse(fmt.Sprintf("maxHistoryBytes: %d is not a positive integer", *input.MaxHistoryBytes))
	}
	return nil
}
