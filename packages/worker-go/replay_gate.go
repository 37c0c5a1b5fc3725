package twcworker

// The replay gate's activity: runs on the new build's worker, finds the current build's workflows
// of the versioning behaviours asked (auto-upgrade ones by default) in visibility, fetches their
// histories and replays them against this build's workflows (CheckCompatibility). As the
// TypeScript library's (packages/worker/src/replay-gate.ts): the same queries, order and outcome.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

const (
	defaultGateWorkflows   = 20
	defaultGateMaxAgeHours = 24.0
)

// ReplayGateOptions is what the gate's activity needs.
type ReplayGateOptions struct {
	// Client of this worker's namespace.
	Client client.Client
	// Namespace and DeploymentName of this worker (Environment.Namespace, .DeploymentName).
	Namespace      string
	DeploymentName string
	// BuildID of this worker (Environment.BuildID): the gate's activity checks that the gate it
	// serves is pinned to it. Unchecked when empty.
	BuildID string
	// Workflows registers this build's workflows, as on the worker.
	Workflows func(worker.WorkflowRegistry)
	Logger    log.Logger
}

// Registry is what a worker registers workflows and activities on (worker.Worker is one).
type Registry interface {
	worker.WorkflowRegistry
	worker.ActivityRegistry
}

// RegisterReplayGate registers the gate's workflow (pinned) and its activity on the worker.
func RegisterReplayGate(r Registry, options ReplayGateOptions) {
	registerReplayGateWorkflow(r)
	gate := &replayGate{source: &clientSource{client: options.Client, namespace: options.Namespace}, options: options, now: time.Now}
	r.RegisterActivityWithOptions(gate.replayRecentHistories, activity.RegisterOptions{Name: ReplayGateActivity})
}

func registerReplayGateWorkflow(r worker.WorkflowRegistry) {
	r.RegisterWorkflowWithOptions(ReplayGate, workflow.RegisterOptions{
		Name:               ReplayGateWorkflow,
		VersioningBehavior: workflow.VersioningBehaviorPinned,
	})
}

// run is a workflow run found in visibility.
type run struct{ workflowID, runID, workflowType string }

// gateSource is what the replay gate and the replay check read of Temporal.
type gateSource interface {
	currentBuildID(ctx context.Context, deploymentName string) (string, error)
	pinnedBuildID(ctx context.Context, workflowID, runID string) (string, error)
	list(ctx context.Context, query string, limit int) ([]run, error)
	// describe is the run's workflow type and history size; found is false when Temporal no longer has it.
	describe(ctx context.Context, workflowID, runID string) (workflowType string, historyBytes int64, found bool, err error)
	history(ctx context.Context, workflowID, runID string) (*historypb.History, error)
}

type replayGate struct {
	source  gateSource
	options ReplayGateOptions
	now     func() time.Time
}

func (g *replayGate) replayRecentHistories(ctx context.Context, input *ReplayGateInput) (*ReplayOutcome, error) {
	if input == nil {
		input = &ReplayGateInput{}
	}
	behaviors := input.Behaviors
	if behaviors == nil {
		behaviors = []string{BehaviorAutoUpgrade}
	}
	known := func(b string) bool { return b == BehaviorAutoUpgrade || b == BehaviorPinned }
	if len(behaviors) == 0 || !allOf(behaviors, known) {
		named, _ := json.Marshal(behaviors)
		return nil, temporal.NewNonRetryableApplicationError(
			fmt.Sprintf("behaviors %s: name one or both of AutoUpgrade and Pinned", named), InvalidGateInput, nil)
	}
	if err := g.onTheGatesBuild(ctx); err != nil {
		return nil, err
	}
	current, err := g.source.currentBuildID(ctx, g.options.DeploymentName)
	if err != nil {
		return nil, fmt.Errorf("describing worker deployment %s: %w", g.options.DeploymentName, err)
	}
	if current == "" {
		return &ReplayOutcome{Divergences: []Divergence{}}, nil
	}
	limit := defaultGateWorkflows
	if input.Workflows != nil {
		limit = *input.Workflows
	}
	maxAge := defaultGateMaxAgeHours
	if input.MaxAgeHours != nil {
		maxAge = *input.MaxAgeHours
	}
	since := g.now().Add(-time.Duration(maxAge * float64(time.Hour)))
	// Running workflows first: they are the ones that move to the new build and replay their
	// history there. Closed ones fill the rest: none runs again, but each went through steps of
	// the code that running ones reach later, some before traffic moves.
	var runs []run
	for _, closedSince := range []*time.Time{nil, &since} {
		if len(runs) >= limit {
			break
		}
		query := ReplayedWorkflowsQuery(g.options.DeploymentName, current, behaviors, closedSince)
		found, err := g.source.list(ctx, query, limit-len(runs))
		if err != nil {
			return nil, fmt.Errorf("listing workflows (%s): %w", query, err)
		}
		for _, r := range found {
			// One that closed between the two queries is in both.
			if !slices.ContainsFunc(runs, func(o run) bool { return o.runID == r.runID }) {
				runs = append(runs, r)
			}
			if len(runs) >= limit {
				break
			}
		}
	}
	outcome := &ReplayOutcome{CurrentBuildID: current, Divergences: []Divergence{}}
	if len(runs) == 0 {
		return outcome, nil
	}
	histories := make([]WorkflowHistory, 0, len(runs))
	for _, r := range runs {
		h, err := g.source.history(ctx, r.workflowID, r.runID)
		if err != nil {
			return nil, fmt.Errorf("fetching the history of workflow %s run %s: %w", r.workflowID, r.runID, err)
		}
		histories = append(histories, WorkflowHistory{WorkflowID: r.workflowID, RunID: r.runID, WorkflowType: r.workflowType, History: h})
		activity.RecordHeartbeat(ctx, len(histories))
	}
	results, err := CheckCompatibility(histories, g.options.Workflows, nil)
	if err != nil {
		return nil, err
	}
	outcome.Replayed = len(results)
	for _, r := range results {
		if r.Divergence != nil {
			outcome.Divergences = append(outcome.Divergences, *r.Divergence)
		}
	}
	return outcome, nil
}

// ActivityOnAnotherBuild is the failure type of a check's activity (the replay gate's, the
// replay check's) run by a worker of another build than the check's (retried).
const ActivityOnAnotherBuild = "ReplayGateActivityOnAnotherBuild"

// onTheGatesBuild refuses to replay on a worker of another build than the gate's.
func (g *replayGate) onTheGatesBuild(ctx context.Context) error {
	return refuseAnotherBuild(ctx, g.source, g.options.BuildID, "the replay gate")
}

// refuseAnotherBuild refuses to replay on a worker of another build than the check's (`check`
// names it): replayed there, the histories would be checked against that build's code. Seen on
// server 1.29.1: a gate pinned to a build that had just registered had its activity run by the
// current build's worker, whose code replays its own histories cleanly. Refused, the activity is
// retried, by then on the check's build.
func refuseAnotherBuild(ctx context.Context, source gateSource, buildID, check string) error {
	if buildID == "" || !activity.IsActivity(ctx) {
		return nil
	}
	run := activity.GetInfo(ctx).WorkflowExecution
	pinned, err := source.pinnedBuildID(ctx, run.ID, run.RunID)
	if err != nil {
		return fmt.Errorf("describing the workflow %s of %s: %w", run.ID, check, err)
	}
	if pinned != "" && pinned != buildID {
		return temporal.NewApplicationError(
			fmt.Sprintf("%s of build %s had its activity run by a worker of build %s, whose code it does not check: tried again", check, pinned, buildID),
			ActivityOnAnotherBuild)
	}
	return nil
}

func allOf(values []string, ok func(string) bool) bool {
	for _, v := range values {
		if !ok(v) {
			return false
		}
	}
	return true
}

// ReplayedWorkflowsQuery is the visibility query of the workflows of `behaviors` whose last
// workflow task ran on the build: running ones, or with closedSince those that closed since
// then. The behaviours are checked against the known ones before they reach a query.
func ReplayedWorkflowsQuery(deploymentName, buildID string, behaviors []string, closedSince *time.Time) string {
	status := "ExecutionStatus = 'Running'"
	if closedSince != nil {
		status = fmt.Sprintf("ExecutionStatus != 'Running' AND CloseTime > '%s'", closedSince.UTC().Format("2006-01-02T15:04:05.000Z"))
	}
	quoted := make([]string, len(behaviors))
	for i, b := range behaviors {
		quoted[i] = "'" + b + "'"
	}
	return fmt.Sprintf("TemporalWorkerDeploymentVersion = '%s:%s' AND TemporalWorkflowVersioningBehavior IN (%s) AND %s",
		deploymentName, buildID, strings.Join(quoted, ", "), status)
}

// clientSource reads Temporal through the SDK's client.
type clientSource struct {
	client    client.Client
	namespace string
}

func (s *clientSource) currentBuildID(ctx context.Context, deploymentName string) (string, error) {
	described, err := s.client.WorkflowService().DescribeWorkerDeployment(ctx, &workflowservice.DescribeWorkerDeploymentRequest{
		Namespace:      s.namespace,
		DeploymentName: deploymentName,
	})
	if err != nil {
		return "", err
	}
	return described.GetWorkerDeploymentInfo().GetRoutingConfig().GetCurrentDeploymentVersion().GetBuildId(), nil
}

func (s *clientSource) pinnedBuildID(ctx context.Context, workflowID, runID string) (string, error) {
	described, err := s.client.DescribeWorkflowExecution(ctx, workflowID, runID)
	if err != nil {
		return "", err
	}
	versioning := described.GetWorkflowExecutionInfo().GetVersioningInfo()
	if build := versioning.GetVersioningOverride().GetPinned().GetVersion().GetBuildId(); build != "" {
		return build, nil
	}
	return versioning.GetDeploymentVersion().GetBuildId(), nil
}

func (s *clientSource) describe(ctx context.Context, workflowID, runID string) (string, int64, bool, error) {
	described, err := s.client.DescribeWorkflowExecution(ctx, workflowID, runID)
	var notFound *serviceerror.NotFound
	if errors.As(err, &notFound) {
		return "", 0, false, nil
	}
	if err != nil {
		return "", 0, false, err
	}
	info := described.GetWorkflowExecutionInfo()
	return info.GetType().GetName(), info.GetHistorySizeBytes(), true, nil
}

func (s *clientSource) list(ctx context.Context, query string, limit int) ([]run, error) {
	var runs []run
	var token []byte
	for len(runs) < limit {
		page, err := s.client.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{
			Namespace:     s.namespace,
			PageSize:      int32(limit - len(runs)),
			NextPageToken: token,
			Query:         query,
		})
		if err != nil {
			return nil, err
		}
		for _, e := range page.GetExecutions() {
			runs = append(runs, run{workflowID: e.GetExecution().GetWorkflowId(), runID: e.GetExecution().GetRunId(), workflowType: e.GetType().GetName()})
		}
		if token = page.GetNextPageToken(); len(token) == 0 {
			break
		}
	}
	if len(runs) > limit {
		runs = runs[:limit]
	}
	return runs, nil
}

func (s *clientSource) history(ctx context.Context, workflowID, runID string) (*historypb.History, error) {
	events := s.client.GetWorkflowHistory(ctx, workflowID, runID, false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	history := &historypb.History{}
	for events.HasNext() {
		event, err := events.Next()
		if err != nil {
			return nil, err
		}
		history.Events = append(history.Events, event)
	}
	return history, nil
}
