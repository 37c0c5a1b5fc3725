package twcworker

// One versioned worker from the injected environment, for the life of its container: connected
// with the credentials the controller mounts (rotated files followed), drained on SIGTERM, with
// the replay gate registered.

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

// DefaultShutdownGraceTime is how long tasks in flight may finish after SIGTERM: within
// Kubernetes' default terminationGracePeriodSeconds of 30; raise both together.
const DefaultShutdownGraceTime = 25 * time.Second

// WorkerOptions are the SDK's worker options for where the worker belongs in Temporal: a
// versioned worker of the environment's Worker Deployment and build, with behavior for the
// workflows that do not say (workflow.VersioningBehaviorUnspecified means Pinned, as in the
// TypeScript library: a workflow finishes on the build it started on), and the drain on stop.
func WorkerOptions(env *Environment, behavior workflow.VersioningBehavior, shutdownGraceTime time.Duration) worker.Options {
	if behavior == workflow.VersioningBehaviorUnspecified {
		behavior = workflow.VersioningBehaviorPinned
	}
	if shutdownGraceTime <= 0 {
		shutdownGraceTime = DefaultShutdownGraceTime
	}
	return worker.Options{
		DeploymentOptions: worker.DeploymentOptions{
			UseVersioning:             true,
			Version:                   worker.WorkerDeploymentVersion{DeploymentName: env.DeploymentName, BuildID: env.BuildID},
			DefaultVersioningBehavior: behavior,
		},
		WorkerStopTimeout: shutdownGraceTime,
	}
}

// Options of Run.
type Options struct {
	// Workflows registers this build's workflows. It is called on the worker, and on the
	// replayer of each replay gate run: register every workflow here, and only workflows.
	Workflows func(worker.WorkflowRegistry)
	// Activities registers this build's activities.
	Activities func(worker.ActivityRegistry)
	// DefaultVersioningBehavior is for workflows that do not say (default Pinned).
	DefaultVersioningBehavior workflow.VersioningBehavior
	// ShutdownGraceTime is how long tasks in flight may finish after SIGTERM (default 25 s).
	ShutdownGraceTime time.Duration
	// Getenv reads the environment (default os.Getenv).
	Getenv func(string) string
	// Worker changes any other option of the SDK's worker, after the library set its own.
	Worker func(*worker.Options)
	// Client changes any other option of the SDK's client, after the library set its own.
	Client func(*client.Options)
	// FilesCheckInterval is how often the API key file is read again (default 2 s).
	FilesCheckInterval time.Duration
	// Logger (default: slog's default logger).
	Logger log.Logger
}

// Run runs the worker until ctx is done, SIGTERM or SIGINT comes, or the worker fails: then it
// stops polling and lets the tasks in flight finish for ShutdownGraceTime. It returns the
// environment's refusal (*EnvError), a failure to connect, or the worker's fatal error.
func Run(ctx context.Context, options Options) error {
	logger := options.Logger
	if logger == nil {
		logger = log.NewStructuredLogger(slog.New(slog.NewTextHandler(os.Stderr, nil)))
	}
	env, err := ReadEnvironment(options.Getenv)
	if err != nil {
		return err
	}
	clientOpts := clientOptions(env, options.FilesCheckInterval, logger)
	if options.Client != nil {
		options.Client(&clientOpts)
	}
	// Signals are listened to from here on: a SIGTERM while connecting is a stop too.
	ctx, stop := stopOnSignal(ctx)
	defer stop()
	c, err := client.DialContext(ctx, clientOpts)
	if err != nil {
		return fmt.Errorf("connecting to Temporal at %s (namespace %s): %w", env.Address, env.Namespace, err)
	}
	defer c.Close()
	workerOpts := WorkerOptions(env, options.DefaultVersioningBehavior, options.ShutdownGraceTime)
	if options.Worker != nil {
		options.Worker(&workerOpts)
	}
	w := worker.New(c, env.TaskQueue, workerOpts)
	if options.Workflows != nil {
		options.Workflows(w)
	}
	if options.Activities != nil {
		options.Activities(w)
	}
	checks := ReplayGateOptions{
		Client:         c,
		Namespace:      env.Namespace,
		DeploymentName: env.DeploymentName,
		BuildID:        env.BuildID,
		Workflows:      options.Workflows,
		Logger:         logger,
	}
	RegisterReplayGate(w, checks)
	RegisterReplayCheck(w, checks)
	logger.Info("worker starting", "deployment", env.DeploymentName, "buildId", env.BuildID, "taskQueue", env.TaskQueue)
	return runUntilDone(ctx, w)
}

// stopOnSignal is ctx, done also on SIGTERM (Kubernetes stopping the Pod) or SIGINT.
func stopOnSignal(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, syscall.SIGTERM, syscall.SIGINT)
}

// runUntilDone runs the worker until ctx is done; worker.Run stops it then, which drains.
func runUntilDone(ctx context.Context, w interface{ Run(<-chan any) error }) error {
	interrupt := make(chan any)
	go func() {
		<-ctx.Done()
		close(interrupt)
	}()
	return w.Run(interrupt)
}
