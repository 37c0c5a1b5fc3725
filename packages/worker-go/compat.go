package twcworker

// The compatibility check: given histories, which replay on this build's workflow code and which
// do not, and why. The replay gate runs it on the current build's recent histories, the replay
// check (replay_check.go) on the runs it is given.

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// WorkflowHistory is one run's history, as fetched from Temporal or read from a JSON file
// (client.HistoryFromJSON).
type WorkflowHistory struct {
	WorkflowID string
	RunID      string
	// WorkflowType is read from the history's first event when empty.
	WorkflowType string
	History      *historypb.History
}

// Compatibility is whether one history replays on this build's code.
type Compatibility struct {
	WorkflowID   string
	RunID        string
	WorkflowType string
	// Divergence is nil when the history replays cleanly; otherwise it says where and why not.
	Divergence *Divergence
	// Err is the replayer's own error, when it did not replay.
	Err error
}

// Replays says whether the history replayed cleanly.
func (c Compatibility) Replays() bool { return c.Divergence == nil }

// CheckCompatibility replays each history against the workflows `register` registers (the same
// function the worker registers its workflows with; the library's own replay gate and replay
// check are added, since their pinned runs are among a build's workflows) and
// says, for each, whether it replays and, if not, the first event that diverged and the SDK's
// reason. A history that names a workflow type this build does not register does not replay.
// logger may be nil (the replayer is quiet then).
func CheckCompatibility(histories []WorkflowHistory, register func(worker.WorkflowRegistry), logger log.Logger) ([]Compatibility, error) {
	replayer, err := worker.NewWorkflowReplayerWithOptions(worker.WorkflowReplayerOptions{})
	if err != nil {
		return nil, fmt.Errorf("making the workflow replayer: %w", err)
	}
	if register != nil {
		register(replayer)
	}
	registerReplayGateWorkflow(replayer)
	registerReplayCheckWorkflow(replayer)
	if logger == nil {
		logger = quietLogger{}
	}
	results := make([]Compatibility, 0, len(histories))
	for _, h := range histories {
		result := Compatibility{WorkflowID: h.WorkflowID, RunID: h.RunID, WorkflowType: h.WorkflowType}
		if result.WorkflowType == "" {
			result.WorkflowType = workflowTypeOf(h.History)
		}
		err := replayOne(replayer, logger, h)
		if err != nil {
			result.Err = err
			result.Divergence = &Divergence{
				WorkflowID:   h.WorkflowID,
				RunID:        h.RunID,
				WorkflowType: result.WorkflowType,
				Event:        DivergedEvent(err.Error(), h.History),
				Message:      SDKReason(err.Error()),
			}
		}
		results = append(results, result)
	}
	return results, nil
}

// replayOne replays one history; a panic of the replayer (a malformed history) is its failure.
func replayOne(replayer worker.WorkflowReplayer, logger log.Logger, h WorkflowHistory) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("the replayer panicked: %v", p)
		}
	}()
	if h.History == nil {
		return fmt.Errorf("no history")
	}
	return replayer.ReplayWorkflowHistoryWithOptions(logger, h.History, worker.ReplayWorkflowHistoryOptions{
		OriginalExecution: workflow.Execution{ID: h.WorkflowID, RunID: h.RunID},
	})
}

func workflowTypeOf(history *historypb.History) string {
	if name := history.GetEvents(); len(name) > 0 {
		return name[0].GetWorkflowExecutionStartedEventAttributes().GetWorkflowType().GetName()
	}
	return ""
}

var tmprlReason = regexp.MustCompile(`\[TMPRL\d+\][^"]*`)

// SDKReason is the SDK's own words (`[TMPRL1100] ...`) out of the replayer's wrapping, where
// they are.
func SDKReason(message string) string {
	if m := tmprlReason.FindString(message); m != "" {
		return strings.TrimSpace(m)
	}
	return message
}

var (
	eventIDInMessage = regexp.MustCompile(`(?i)event[_ ]?id[:= ]\s*(\d+)`)
)

// DivergedEvent is `<id> <EventType>` of the event the SDK's error names by its id
// (`scheduleEventID: 5`); empty when it names none (some of the Go SDK's errors name an event by
// its type only).
func DivergedEvent(message string, history *historypb.History) string {
	if m := eventIDInMessage.FindStringSubmatch(message); m != nil {
		id, _ := strconv.ParseInt(m[1], 10, 64)
		for _, e := range history.GetEvents() {
			if e.GetEventId() == id {
				return fmt.Sprintf("%d %s", id, eventTypeName(e.GetEventType()))
			}
		}
		return m[1]
	}
	return ""
}

// eventTypeName is EVENT_TYPE_ACTIVITY_TASK_SCHEDULED as ActivityTaskScheduled.
func eventTypeName(t enumspb.EventType) string {
	return t.String()
}

// quietLogger drops the replayer's logs: a divergence is returned, not logged.
type quietLogger struct{}

func (quietLogger) Debug(string, ...any) {}
func (quietLogger) Info(string, ...any)  {}
func (quietLogger) Warn(string, ...any)  {}
func (quietLogger) Error(string, ...any) {}
