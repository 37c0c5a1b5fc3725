package twcworker

// The compatibility check and the replay gate on histories recorded from a real server
// (testdata/, written by TestAgainstTemporal with TWC_RECORD_HISTORIES=1): v1's checkout,
// completed and running, replayed on a compatible and on a breaking change.

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	commonpb "go.temporal.io/api/common/v1"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	taskqueuepb "go.temporal.io/api/taskqueue/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/proto"
)

func recorded(t *testing.T, name string) WorkflowHistory {
	t.Helper()
	file, err := os.Open(filepath.Join("testdata", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	history, err := client.HistoryFromJSON(file, client.HistoryJSONOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return WorkflowHistory{WorkflowID: name, RunID: "run-" + name, History: history}
}

func v1Histories(t *testing.T) []WorkflowHistory {
	return []WorkflowHistory{recorded(t, "checkout-v1-running"), recorded(t, "checkout-v1-completed")}
}

func TestCompatibleChangesReplayAndBreakingOnesDoNotWithWhy(t *testing.T) {
	histories := v1Histories(t)
	for name, workflows := range map[string]func(worker.WorkflowRegistry){
		"v1 itself":                  checkoutWorkflows(checkoutV1),
		"a change behind GetVersion": checkoutWorkflows(checkoutCompatible),
	} {
		results, err := CheckCompatibility(histories, workflows, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range results {
			if !r.Replays() || r.WorkflowType != checkoutType {
				t.Errorf("%s: %s does not replay: %+v", name, r.WorkflowID, r.Divergence)
			}
		}
	}

	results, err := CheckCompatibility(histories, checkoutWorkflows(checkoutBreaking), nil)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		if r.Replays() || r.Err == nil {
			t.Fatalf("a timer before the activity replays %s", r.WorkflowID)
		}
		d := r.Divergence
		t.Logf("%s: event %q: %s", r.WorkflowID, d.Event, d.Message)
		if d.WorkflowID != histories[i].WorkflowID || d.RunID != histories[i].RunID || d.WorkflowType != checkoutType {
			t.Errorf("the divergence names another run: %+v", d)
		}
		if !strings.HasPrefix(d.Message, "[TMPRL1100]") {
			t.Errorf("the reason is not the SDK's: %q", d.Message)
		}
		if d.Event != "5 ActivityTaskScheduled" {
			t.Errorf("the diverged event: %q, want 5 ActivityTaskScheduled (where v1 scheduled the charge)", d.Event)
		}
	}

	// A workflow type this build does not register does not replay either.
	results, _ = CheckCompatibility(histories[:1], nil, nil)
	if results[0].Replays() || !strings.Contains(results[0].Divergence.Message, checkoutType) {
		t.Errorf("an unregistered type: %+v", results[0].Divergence)
	}
	// Nor does an empty history; the check goes on.
	results, _ = CheckCompatibility([]WorkflowHistory{{WorkflowID: "empty", History: &historypb.History{}}, histories[0]}, checkoutWorkflows(checkoutV1), nil)
	if results[0].Replays() || !results[1].Replays() {
		t.Errorf("an empty history then a good one: %+v", results)
	}
}

// The start of a run of workflowType: its first task scheduled the activity activityType.
func started(workflowType, activityType string) *historypb.History {
	events := []*historypb.HistoryEvent{
		{EventId: 1, EventType: enumspb.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED, Attributes: &historypb.HistoryEvent_WorkflowExecutionStartedEventAttributes{
			WorkflowExecutionStartedEventAttributes: &historypb.WorkflowExecutionStartedEventAttributes{
				WorkflowType: &commonpb.WorkflowType{Name: workflowType},
				TaskQueue:    &taskqueuepb.TaskQueue{Name: "orders"},
			},
		}},
		{EventId: 2, EventType: enumspb.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, Attributes: &historypb.HistoryEvent_WorkflowTaskScheduledEventAttributes{
			WorkflowTaskScheduledEventAttributes: &historypb.WorkflowTaskScheduledEventAttributes{TaskQueue: &taskqueuepb.TaskQueue{Name: "orders"}},
		}},
		{EventId: 3, EventType: enumspb.EVENT_TYPE_WORKFLOW_TASK_STARTED, Attributes: &historypb.HistoryEvent_WorkflowTaskStartedEventAttributes{
			WorkflowTaskStartedEventAttributes: &historypb.WorkflowTaskStartedEventAttributes{ScheduledEventId: 2},
		}},
		{EventId: 4, EventType: enumspb.EVENT_TYPE_WORKFLOW_TASK_COMPLETED, Attributes: &historypb.HistoryEvent_WorkflowTaskCompletedEventAttributes{
			WorkflowTaskCompletedEventAttributes: &historypb.WorkflowTaskCompletedEventAttributes{ScheduledEventId: 2, StartedEventId: 3},
		}},
		{EventId: 5, EventType: enumspb.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED, Attributes: &historypb.HistoryEvent_ActivityTaskScheduledEventAttributes{
			ActivityTaskScheduledEventAttributes: &historypb.ActivityTaskScheduledEventAttributes{
				ActivityId:                   "5",
				ActivityType:                 &commonpb.ActivityType{Name: activityType},
				TaskQueue:                    &taskqueuepb.TaskQueue{Name: "orders"},
				WorkflowTaskCompletedEventId: 4,
			},
		}},
	}
	return &historypb.History{Events: events}
}

// A build's pinned workflows include the runs of the controller's replay gate and replay check
// on it: every build replays them, whatever its own workflows.
func TestTheLibrarysOwnWorkflowsReplayOnAnyBuild(t *testing.T) {
	histories := []WorkflowHistory{
		{WorkflowID: "gate", History: started(ReplayGateWorkflow, ReplayGateActivity)},
		{WorkflowID: "check", History: started(ReplayCheckWorkflow, ReplayCheckActivity)},
	}
	results, err := CheckCompatibility(histories, checkoutWorkflows(checkoutV1), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range results {
		if !r.Replays() {
			t.Errorf("%s (%s) does not replay: %+v", r.WorkflowID, r.WorkflowType, r.Divergence)
		}
	}
}

// fakeSource is Temporal as the gate reads it: a current build and the runs each query lists.
type fakeSource struct {
	current   string
	pinned    string
	runs      map[string][]run // by "running" or "closed"
	histories map[string]*historypb.History
	queries   []string
	limits    []int
	described []string
}

func (f *fakeSource) currentBuildID(context.Context, string) (string, error) { return f.current, nil }

func (f *fakeSource) pinnedBuildID(context.Context, string, string) (string, error) {
	return f.pinned, nil
}

func (f *fakeSource) list(_ context.Context, query string, limit int) ([]run, error) {
	f.queries, f.limits = append(f.queries, query), append(f.limits, limit)
	key := "running"
	if strings.Contains(query, "!= 'Running'") {
		key = "closed"
	}
	runs := f.runs[key]
	if len(runs) > limit {
		runs = runs[:limit]
	}
	return runs, nil
}

func (f *fakeSource) describe(_ context.Context, workflowID, _ string) (string, int64, bool, error) {
	f.described = append(f.described, workflowID)
	h, ok := f.histories[workflowID]
	return workflowTypeOf(h), int64(proto.Size(h)), ok, nil
}

func (f *fakeSource) history(_ context.Context, workflowID, _ string) (*historypb.History, error) {
	if h, ok := f.histories[workflowID]; ok {
		return h, nil
	}
	return nil, errors.New("no such workflow")
}

func gateOn(t *testing.T, source *fakeSource, workflows func(worker.WorkflowRegistry)) (*testsuite.TestWorkflowEnvironment, *replayGate) {
	t.Helper()
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(quietLogger{})
	env := suite.NewTestWorkflowEnvironment()
	gate := &replayGate{source: source, options: ReplayGateOptions{DeploymentName: "ns/orders", Workflows: workflows}, now: func() time.Time {
		return time.Date(2026, 1, 2, 12, 0, 0, 0, time.UTC)
	}}
	registerReplayGateWorkflow(env)
	env.RegisterActivityWithOptions(gate.replayRecentHistories, activity.RegisterOptions{Name: ReplayGateActivity})
	return env, gate
}

func checkoutSource(t *testing.T) *fakeSource {
	histories := v1Histories(t)
	return &fakeSource{
		current: "v1",
		runs: map[string][]run{
			"running": {{workflowID: histories[0].WorkflowID, runID: "r1", workflowType: checkoutType}},
			"closed": {
				{workflowID: histories[0].WorkflowID, runID: "r1", workflowType: checkoutType}, // closed between the queries
				{workflowID: histories[1].WorkflowID, runID: "r2", workflowType: checkoutType},
			},
		},
		histories: map[string]*historypb.History{histories[0].WorkflowID: histories[0].History, histories[1].WorkflowID: histories[1].History},
	}
}

func TestTheGateFailsABreakingBuildNamingTheWorkflowAndEvent(t *testing.T) {
	source := checkoutSource(t)
	env, _ := gateOn(t, source, checkoutWorkflows(checkoutBreaking))
	env.ExecuteWorkflow(ReplayGateWorkflow, map[string]any{"workflows": 20})
	var appErr *temporal.ApplicationError
	if err := env.GetWorkflowError(); !errors.As(err, &appErr) || appErr.Type() != NondeterministicChange {
		t.Fatalf("the gate's error: %v", err)
	}
	want := "workflow checkout-v1-running (checkout) of build v1 does not replay on this build at event 5 ActivityTaskScheduled: [TMPRL1100]"
	if !strings.HasPrefix(appErr.Message(), want) || !strings.HasSuffix(appErr.Message(), "; and 1 more of 2 replayed") {
		t.Errorf("the gate's message: %q", appErr.Message())
	}
	if !appErr.NonRetryable() {
		t.Error("the gate's failure is retryable")
	}
	var outcome ReplayOutcome
	if err := appErr.Details(&outcome); err != nil || outcome.CurrentBuildID != "v1" || outcome.Replayed != 2 || len(outcome.Divergences) != 2 {
		t.Errorf("the failure's details: %+v %v", outcome, err)
	}
	// Running ones first, then closed ones within maxAgeHours (24 by default), up to `workflows` in all.
	wantQueries := []string{
		"TemporalWorkerDeploymentVersion = 'ns/orders:v1' AND TemporalWorkflowVersioningBehavior IN ('AutoUpgrade') AND ExecutionStatus = 'Running'",
		"TemporalWorkerDeploymentVersion = 'ns/orders:v1' AND TemporalWorkflowVersioningBehavior IN ('AutoUpgrade') AND ExecutionStatus != 'Running' AND CloseTime > '2026-01-01T12:00:00.000Z'",
	}
	if !reflect.DeepEqual(source.queries, wantQueries) || !reflect.DeepEqual(source.limits, []int{20, 19}) {
		t.Errorf("queries %q, limits %v", source.queries, source.limits)
	}
}

func TestTheGatePassesACompatibleBuildWithTheTypeScriptLibrarysOutcome(t *testing.T) {
	env, _ := gateOn(t, checkoutSource(t), checkoutWorkflows(checkoutCompatible))
	env.ExecuteWorkflow(ReplayGateWorkflow) // no input: the controller sends none when the gate has no input
	var raw json.RawMessage
	if err := env.GetWorkflowResult(&raw); err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"currentBuildId":"v1","replayed":2,"divergences":[]}` {
		t.Errorf("the outcome as JSON: %s", raw)
	}

	// No build current (a first rollout): nothing to replay, no currentBuildId.
	env, _ = gateOn(t, &fakeSource{}, checkoutWorkflows(checkoutCompatible))
	env.ExecuteWorkflow(ReplayGateWorkflow, map[string]any{})
	if err := env.GetWorkflowResult(&raw); err != nil || string(raw) != `{"replayed":0,"divergences":[]}` {
		t.Errorf("with no current build: %s %v", raw, err)
	}

	// Pinned too, a smaller count, an older window.
	source := checkoutSource(t)
	env, _ = gateOn(t, source, checkoutWorkflows(checkoutCompatible))
	env.ExecuteWorkflow(ReplayGateWorkflow, map[string]any{"workflows": 1, "maxAgeHours": 48, "behaviors": []string{"AutoUpgrade", "Pinned"}})
	if err := env.GetWorkflowResult(&raw); err != nil || string(raw) != `{"currentBuildId":"v1","replayed":1,"divergences":[]}` {
		t.Errorf("workflows: 1: %s %v", raw, err)
	}
	if len(source.queries) != 1 || !strings.Contains(source.queries[0], "IN ('AutoUpgrade', 'Pinned')") {
		t.Errorf("queries: %q", source.queries)
	}
}

func TestTheGateRefusesUnknownBehaviours(t *testing.T) {
	for _, behaviors := range [][]string{{}, {"Pinned", "Sticky"}} {
		env, _ := gateOn(t, checkoutSource(t), checkoutWorkflows(checkoutCompatible))
		env.ExecuteWorkflow(ReplayGateWorkflow, map[string]any{"behaviors": behaviors})
		var appErr *temporal.ApplicationError
		if err := env.GetWorkflowError(); !errors.As(err, &appErr) || appErr.Type() != InvalidGateInput ||
			!strings.Contains(appErr.Message(), ": name one or both of AutoUpgrade and Pinned") {
			t.Errorf("%v: %v", behaviors, err)
		}
	}
}

func TestTheGatesActivityRefusesToReplayOnAnotherBuildsWorker(t *testing.T) {
	source := checkoutSource(t)
	source.pinned = "v2"
	env, gate := gateOn(t, source, checkoutWorkflows(checkoutV1))
	gate.options.BuildID = "v1"
	env.ExecuteWorkflow(ReplayGateWorkflow)
	var appErr *temporal.ApplicationError
	if err := env.GetWorkflowError(); !errors.As(err, &appErr) || appErr.Type() != ActivityOnAnotherBuild ||
		appErr.Message() != "the replay gate of build v2 had its activity run by a worker of build v1, whose code it does not check: tried again" {
		t.Fatalf("on another build's worker: %v", err)
	}
	if len(source.queries) != 0 {
		t.Errorf("it read visibility: %q", source.queries)
	}
	source.pinned = "v1"
	env, gate = gateOn(t, source, checkoutWorkflows(checkoutV1))
	gate.options.BuildID = "v1"
	env.ExecuteWorkflow(ReplayGateWorkflow)
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("on its own build's worker: %v", err)
	}
}
