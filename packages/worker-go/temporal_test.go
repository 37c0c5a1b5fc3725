package twcworker

// The library against a real Temporal server: versioned workers run by Run from the injected
// environment, the replay gate failing a breaking build and passing a compatible one through
// visibility, and the drain on SIGTERM. The server is TWC_TEST_TEMPORAL_ADDRESS (namespace
// TWC_TEST_TEMPORAL_NAMESPACE, default "default"), or a dev server started from the Temporal CLI
// at TWC_TEMPORAL_CLI; with neither, the test is skipped. TWC_RECORD_HISTORIES=1 writes v1's
// histories to testdata/, which the replay tests read.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"google.golang.org/protobuf/encoding/protojson"
)

func temporalServer(t *testing.T) (address, namespace string) {
	t.Helper()
	namespace = os.Getenv("TWC_TEST_TEMPORAL_NAMESPACE")
	if namespace == "" {
		namespace = "default"
	}
	if address = os.Getenv("TWC_TEST_TEMPORAL_ADDRESS"); address != "" {
		return address, namespace
	}
	cli := os.Getenv("TWC_TEMPORAL_CLI")
	if cli == "" {
		t.Skip("no Temporal server: set TWC_TEST_TEMPORAL_ADDRESS, or TWC_TEMPORAL_CLI to a Temporal CLI to start a dev server")
	}
	server, err := testsuite.StartDevServer(context.Background(), testsuite.DevServerOptions{
		ExistingPath:  cli,
		LogLevel:      "warn",
		ClientOptions: &client.Options{Namespace: namespace},
	})
	if err != nil {
		t.Fatalf("starting the dev server from %s: %v", cli, err)
	}
	t.Cleanup(func() { _ = server.Stop() })
	return server.FrontendHostPort(), namespace
}

func eventually[T any](t *testing.T, what string, timeout time.Duration, try func() (T, bool)) T {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		if v, ok := try(); ok {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

type runningWorker struct {
	done chan struct{}
	err  error
}

func runBuild(t *testing.T, address, namespace, deployment, taskQueue, build string, workflows func(worker.WorkflowRegistry)) *runningWorker {
	t.Helper()
	env := map[string]string{
		EnvAddress: address, EnvNamespace: namespace, EnvDeploymentName: deployment,
		EnvBuildID: build, EnvTaskQueue: taskQueue,
	}
	ctx, cancel := context.WithCancel(context.Background())
	w := &runningWorker{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		w.err = Run(ctx, Options{
			Workflows:         workflows,
			Activities:        registerCharge,
			ShutdownGraceTime: 20 * time.Second,
			Getenv:            func(name string) string { return env[name] },
			Logger:            quietLogger{},
			Worker:            func(o *worker.Options) { o.Identity = build },
		})
	}()
	t.Cleanup(func() {
		cancel()
		<-w.done
	})
	return w
}

func TestAgainstTemporal(t *testing.T) {
	address, namespace := temporalServer(t)
	c, err := client.Dial(client.Options{HostPort: address, Namespace: namespace, Logger: quietLogger{}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctx := context.Background()
	suffix := fmt.Sprint(time.Now().UnixNano())
	deployment, taskQueue := "go-worker-test/"+suffix, "go-worker-test-"+suffix
	v1, breaking, compatible := "v1-"+suffix, "breaking-"+suffix, "compatible-"+suffix

	// v1 runs, registers, and is made current, as the controller would.
	v1Worker := runBuild(t, address, namespace, deployment, taskQueue, v1, checkoutWorkflows(checkoutV1))
	handle := c.WorkerDeploymentClient().GetHandle(deployment)
	eventually(t, "v1 to register and become current", 30*time.Second, func() (bool, bool) {
		_, err := handle.SetCurrentVersion(ctx, client.WorkerDeploymentSetCurrentVersionOptions{BuildID: v1})
		return true, err == nil
	})

	// On v1: a checkout completed, one running.
	start := func(id string) client.WorkflowRun {
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: id, TaskQueue: taskQueue}, checkoutType, 10)
		if err != nil {
			t.Fatal(err)
		}
		return run
	}
	completed, running := start("completed-"+suffix), start("running-"+suffix)
	waitForActivity := func(run client.WorkflowRun) {
		eventually(t, "the charge of "+run.GetID(), 30*time.Second, func() (bool, bool) {
			history, err := (&clientSource{client: c}).history(ctx, run.GetID(), run.GetRunID())
			for _, e := range history.GetEvents() {
				if e.GetEventType() == enumspb.EVENT_TYPE_ACTIVITY_TASK_COMPLETED {
					return true, err == nil
				}
			}
			return false, false
		})
	}
	waitForActivity(running)
	if err := c.SignalWorkflow(ctx, completed.GetID(), completed.GetRunID(), "finish", nil); err != nil {
		t.Fatal(err)
	}
	if err := completed.Get(ctx, nil); err != nil {
		t.Fatal(err)
	}
	eventually(t, "v1's two auto-upgrade workflows in visibility", 30*time.Second, func() (bool, bool) {
		count, err := c.CountWorkflow(ctx, &workflowservice.CountWorkflowExecutionsRequest{
			Namespace: namespace,
			Query:     fmt.Sprintf("TemporalWorkerDeploymentVersion = '%s:%s' AND TemporalWorkflowVersioningBehavior = 'AutoUpgrade'", deployment, v1),
		})
		return true, err == nil && count.GetCount() == 2
	})
	if os.Getenv("TWC_RECORD_HISTORIES") == "1" {
		for name, run := range map[string]client.WorkflowRun{"checkout-v1-completed": completed, "checkout-v1-running": running} {
			history, err := (&clientSource{client: c}).history(ctx, run.GetID(), run.GetRunID())
			if err != nil {
				t.Fatal(err)
			}
			data, _ := protojson.MarshalOptions{Multiline: true, Indent: "  "}.Marshal(history)
			if err := os.WriteFile(filepath.Join("testdata", name+".json"), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}

	// The gate, pinned to a build, as the controller starts it; its result or failure as raw JSON.
	gate := func(build string, input any) (map[string]any, *temporal.ApplicationError) {
		runBuild(t, address, namespace, deployment, taskQueue, build, checkoutWorkflowsOf(build, breaking))
		version := worker.WorkerDeploymentVersion{DeploymentName: deployment, BuildID: build}
		// As the controller does, the gate starts once the build's workers registered both task
		// queue types: before, the server may hand the gate's activity to another build's worker.
		eventually(t, build+" to register its workflow and activity pollers", 30*time.Second, func() (bool, bool) {
			described, err := handle.DescribeVersion(ctx, client.WorkerDeploymentDescribeVersionOptions{BuildID: build})
			return true, err == nil && len(described.Info.TaskQueuesInfos) == 2
		})
		var args []any
		if input != nil {
			args = append(args, input)
		}
		run, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{
			ID:                 "gate-" + build,
			TaskQueue:          taskQueue,
			VersioningOverride: &client.PinnedVersioningOverride{Version: version},
		}, ReplayGateWorkflow, args...)
		if err != nil {
			t.Fatal(err)
		}
		var raw json.RawMessage
		err = run.Get(ctx, &raw)
		if history, err := (&clientSource{client: c}).history(ctx, run.GetID(), run.GetRunID()); err == nil {
			for _, e := range history.GetEvents() {
				if a := e.GetActivityTaskStartedEventAttributes(); a != nil {
					t.Logf("gate of %s: its activity ran on worker %s (attempt %d)", build, a.GetIdentity(), a.GetAttempt())
				}
				if a := e.GetWorkflowTaskStartedEventAttributes(); a != nil {
					t.Logf("gate of %s: a workflow task ran on worker %s", build, a.GetIdentity())
				}
			}
		}
		var appErr *temporal.ApplicationError
		if errors.As(err, &appErr) {
			return nil, appErr
		} else if err != nil {
			t.Fatalf("gate on %s: %v", build, err)
		}
		var result map[string]any
		if err := json.Unmarshal(raw, &result); err != nil {
			t.Fatal(err)
		}
		return result, nil
	}

	result, failure := gate(breaking, map[string]any{"workflows": 20})
	if failure == nil {
		t.Fatalf("the gate passed a build that breaks v1's auto-upgrade workflows: %v", result)
	}
	t.Log(failure.Message())
	want := fmt.Sprintf("workflow %s (checkout) of build %s does not replay on this build", running.GetID(), v1)
	if failure.Type() != NondeterministicChange || !strings.HasPrefix(failure.Message(), want) ||
		!strings.Contains(failure.Message(), "[TMPRL1100]") || !strings.HasSuffix(failure.Message(), "; and 1 more of 2 replayed") {
		t.Errorf("the gate's failure: %s %q", failure.Type(), failure.Message())
	}
	var details ReplayOutcome
	if err := failure.Details(&details); err != nil || details.Replayed != 2 || len(details.Divergences) != 2 || details.Divergences[0].RunID != running.GetRunID() {
		t.Errorf("the failure's details: %+v (%v)", details, err)
	}

	passed, failure := gate(compatible, nil)
	if failure != nil {
		t.Fatalf("the gate failed a compatible build: %v", failure)
	}
	wantJSON := fmt.Sprintf(`{"currentBuildId":%q,"divergences":[],"replayed":2}`, v1)
	if got, _ := json.Marshal(passed); string(got) != wantJSON {
		t.Errorf("the gate's result: %s, want %s (the TypeScript library's shape)", got, wantJSON)
	}

	// The drain: a SIGTERM while v1's activity runs stops polling, and the activity completes
	// before Run returns.
	slow, err := c.ExecuteWorkflow(ctx, client.StartWorkflowOptions{ID: "slow-" + suffix, TaskQueue: taskQueue}, checkoutType, 3000)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, "the slow charge to start", 30*time.Second, func() (bool, bool) {
		described, err := c.DescribeWorkflowExecution(ctx, slow.GetID(), slow.GetRunID())
		return true, err == nil && len(described.GetPendingActivities()) == 1 &&
			described.GetPendingActivities()[0].GetState() == enumspb.PENDING_ACTIVITY_STATE_STARTED
	})
	stopped := time.Now()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-v1Worker.done:
	case <-time.After(30 * time.Second):
		t.Fatal("Run did not return after SIGTERM")
	}
	returned := time.Since(stopped)
	if v1Worker.err != nil {
		t.Fatalf("Run returned %v after SIGTERM", v1Worker.err)
	}
	history, err := (&clientSource{client: c}).history(ctx, slow.GetID(), slow.GetRunID())
	if err != nil {
		t.Fatal(err)
	}
	var outcome []string
	for _, e := range history.GetEvents() {
		if name := e.GetEventType().String(); strings.HasPrefix(name, "ActivityTask") {
			outcome = append(outcome, name)
		}
	}
	if strings.Join(outcome, " ") != "ActivityTaskScheduled ActivityTaskStarted ActivityTaskCompleted" {
		t.Errorf("the slow charge after SIGTERM: %v, want it completed", outcome)
	}
	if returned < 2*time.Second {
		t.Errorf("Run returned %v after SIGTERM, before the 3 s charge could finish", returned)
	}
	t.Logf("Run returned %v after SIGTERM, the charge in flight completed", returned.Round(time.Millisecond))
}

func checkoutWorkflowsOf(build, breaking string) func(worker.WorkflowRegistry) {
	if build == breaking {
		return checkoutWorkflows(checkoutBreaking)
	}
	return checkoutWorkflows(checkoutCompatible)
}
