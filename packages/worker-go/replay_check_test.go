package twcworker

// The replay check on histories recorded from a real server: v1's checkout runs, one running and
// one completed, checked on a compatible and on a breaking change, beside a run Temporal no longer
// has and one too large; and the input it refuses.

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/proto"
)

// checkOn runs the check as a worker of v2 runs it, for a check pinned to source.pinned.
func checkOn(t *testing.T, source *fakeSource, workflows func(worker.WorkflowRegistry), input any) (*ReplayCheckOutcome, string, error) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(quietLogger{})
	env := suite.NewTestWorkflowEnvironment()
	check := &replayCheck{source: source, options: ReplayGateOptions{DeploymentName: "ns/orders", BuildID: "v2", Workflows: workflows}}
	registerReplayCheckWorkflow(env)
	env.RegisterActivityWithOptions(check.replayHistories, activity.RegisterOptions{Name: ReplayCheckActivity})
	env.ExecuteWorkflow(ReplayCheckWorkflow, input)
	if err := env.GetWorkflowError(); err != nil {
		return nil, "", err
	}
	var raw json.RawMessage
	if err := env.GetWorkflowResult(&raw); err != nil {
		t.Fatal(err)
	}
	var outcome ReplayCheckOutcome
	if err := json.Unmarshal(raw, &outcome); err != nil {
		t.Fatal(err)
	}
	return &outcome, string(raw), nil
}

func checkInput(maxHistoryBytes int, ids ...string) map[string]any {
	runs := make([]map[string]string, len(ids))
	for i, id := range ids {
		runs[i] = map[string]string{"workflowId": id, "runId": "run-" + id}
	}
	input := map[string]any{"workflows": runs}
	if maxHistoryBytes > 0 {
		input["maxHistoryBytes"] = maxHistoryBytes
	}
	return input
}

func v1Source(t *testing.T) (*fakeSource, []WorkflowHistory) {
	histories := v1Histories(t)
	source := &fakeSource{pinned: "v2", histories: map[string]*historypb.History{}}
	for _, h := range histories {
		source.histories[h.WorkflowID] = h.History
	}
	return source, histories
}

func TestTheCheckSaysOfEachRunInOrderWhetherItReplays(t *testing.T) {
	source, histories := v1Source(t)
	running, completed := histories[0].WorkflowID, histories[1].WorkflowID
	_, raw, err := checkOn(t, source, checkoutWorkflows(checkoutCompatible), checkInput(0, running, "gone", completed))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"results":[` +
		`{"workflowId":"checkout-v1-running","runId":"run-checkout-v1-running","workflowType":"checkout","replays":true},` +
		`{"workflowId":"gone","runId":"run-gone","replays":false,"skipped":"Temporal no longer has this run"},` +
		`{"workflowId":"checkout-v1-completed","runId":"run-checkout-v1-completed","workflowType":"checkout","replays":true}]}`
	if raw != want {
		t.Errorf("on a compatible change:\n%s\nwant\n%s", raw, want)
	}
}

func TestTheCheckNamesWhereARunDivergesAndSkipsOneTooLarge(t *testing.T) {
	source, histories := v1Source(t)
	running, completed := histories[0].WorkflowID, histories[1].WorkflowID
	size := proto.Size(histories[1].History)
	outcome, raw, err := checkOn(t, source, checkoutWorkflows(checkoutBreaking), checkInput(size-1, running, completed))
	if err != nil {
		t.Fatal(err)
	}
	if len(outcome.Results) != 2 {
		t.Fatalf("results: %s", raw)
	}
	diverged, skipped := outcome.Results[0], outcome.Results[1]
	if diverged.WorkflowID != running || diverged.Replays || diverged.WorkflowType != checkoutType ||
		diverged.Event != "5 ActivityTaskScheduled" || !strings.HasPrefix(diverged.Message, "[TMPRL1100]") || diverged.Skipped != "" {
		t.Errorf("the run that diverges: %+v", diverged)
	}
	want := ReplayCheckResult{
		WorkflowID: completed, RunID: "run-" + completed, WorkflowType: checkoutType,
		Skipped: fmt.Sprintf("its history is %d bytes, more than maxHistoryBytes (%d)", size, size-1),
	}
	if skipped != want {
		t.Errorf("the run too large: %+v", skipped)
	}
}

func TestTheCheckRefusesInputThatIsNotABoundedListOfRuns(t *testing.T) {
	many := make([]string, MaxCheckedWorkflows+1)
	for i := range many {
		many[i] = fmt.Sprintf("w%d", i)
	}
	cases := []struct {
		input any
		want  string
	}{
		{map[string]any{}, "workflows: a list of { workflowId, runId } is required"},
		{checkInput(0, many...), "workflows: 1001 runs, at most 1000 a check"},
		{map[string]any{"workflows": []map[string]string{{"workflowId": "w", "runId": "r"}, {"workflowId": "x"}}}, "workflows[1]: workflowId and runId are required"},
		{map[string]any{"workflows": []map[string]string{}, "maxHistoryBytes": 0}, "maxHistoryBytes: 0 is not a positive integer"},
	}
	for _, c := range cases {
		source := &fakeSource{pinned: "v2"}
		_, _, err := checkOn(t, source, checkoutWorkflows(checkoutV1), c.input)
		var appErr *temporal.ApplicationError
		if !errors.As(err, &appErr) || appErr.Type() != InvalidCheckInput || appErr.Message() != c.want || !appErr.NonRetryable() {
			t.Errorf("%v: %v", c.want, err)
		}
		if len(source.described) != 0 {
			t.Errorf("%v: it read runs: %v", c.want, source.described)
		}
	}
}

func TestTheChecksActivityRefusesToReplayOnAnotherBuildsWorker(t *testing.T) {
	source, histories := v1Source(t)
	source.pinned = "v3"
	_, _, err := checkOn(t, source, checkoutWorkflows(checkoutV1), checkInput(0, histories[0].WorkflowID))
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != ActivityOnAnotherBuild ||
		appErr.Message() != "the replay check of build v3 had its activity run by a worker of build v2, whose code it does not check: tried again" {
		t.Fatalf("on another build's worker: %v", err)
	}
	if len(source.described) != 0 {
		t.Errorf("it read runs: %v", source.described)
	}
}
