// The Go sample worker: the sample's workflows (workflows.go) run from the environment the
// controller injects, through the Go worker library, as a user's Go worker would be. Its replay
// gate and replay check are the library's (spec.rollout.gate.workflowType: replayGate,
// spec.sunset.pinnedWorkflows.moveToCurrent). The test rig builds it into an image (image.ts).
package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	twcworker "github.com/temporal-worker-controller/temporal-worker-controller/packages/worker-go"
)

func main() {
	env, err := twcworker.ReadEnvironment(nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	behaviour := os.Getenv("SAMPLE_BEHAVIOUR")
	if behaviour == "" {
		behaviour = "default"
	}
	err = twcworker.Run(context.Background(), twcworker.Options{
		Workflows: Workflows(behaviour),
		Activities: Activities(WorkerIdentity{
			DeploymentName: env.DeploymentName,
			BuildID:        env.BuildID,
			Behaviour:      behaviour,
			Identity:       fmt.Sprintf("%d@%s", os.Getpid(), env.BuildID),
		}),
	})
	var envErr *twcworker.EnvError
	if errors.As(err, &envErr) {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
