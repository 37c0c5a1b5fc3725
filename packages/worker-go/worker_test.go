package twcworker

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/worker"
	"go.temporal.io/sdk/workflow"
)

func TestWorkerOptionsAreVersionedAsTheEnvironmentSays(t *testing.T) {
	env, err := ReadEnvironment(envOf(nil))
	if err != nil {
		t.Fatal(err)
	}
	options := WorkerOptions(env, workflow.VersioningBehaviorUnspecified, 0)
	want := worker.DeploymentOptions{
		UseVersioning:             true,
		Version:                   worker.WorkerDeploymentVersion{DeploymentName: "ns/workers", BuildID: "b1"},
		DefaultVersioningBehavior: workflow.VersioningBehaviorPinned,
	}
	if options.DeploymentOptions != want {
		t.Errorf("deployment options %+v, want %+v", options.DeploymentOptions, want)
	}
	if options.WorkerStopTimeout != 25*time.Second {
		t.Errorf("the drain after SIGTERM: %v, want 25s (within Kubernetes' default grace of 30s)", options.WorkerStopTimeout)
	}
	options = WorkerOptions(env, workflow.VersioningBehaviorAutoUpgrade, 50*time.Second)
	if options.DeploymentOptions.DefaultVersioningBehavior != workflow.VersioningBehaviorAutoUpgrade || options.WorkerStopTimeout != 50*time.Second {
		t.Errorf("AUTO_UPGRADE and 50s: %+v", options)
	}
}

func TestClientOptionsCarryTheConnectionAndCredentials(t *testing.T) {
	dir := t.TempDir()
	ca := makeCert(t, "ca", nil, true)
	token := writeFile(t, dir, "token", []byte("eyJ.token"))

	env, _ := ReadEnvironment(envOf(nil))
	options := ClientOptions(env, nil)
	if options.HostPort != "host:7233" || options.Namespace != "ns" || options.ConnectionOptions.TLS != nil || options.Credentials != nil {
		t.Errorf("no TLS, no credentials: %+v", options)
	}

	env, _ = ReadEnvironment(envOf(map[string]string{EnvAPIKeyPath: token, EnvTLSServerName: "temporal.example.com", EnvTLSServerCACertData: string(ca.certPEM)}))
	options = ClientOptions(env, nil)
	tls := options.ConnectionOptions.TLS
	if tls == nil || tls.ServerName != "temporal.example.com" || tls.RootCAs == nil || tls.InsecureSkipVerify || tls.GetClientCertificate != nil {
		t.Errorf("server name and CA data: %+v", tls)
	}
	if options.Credentials == nil {
		t.Error("no credentials for the token file")
	}

	// A CA file is verified by hand, read at each handshake (TestRotatedTLSFilesArePickedUpAtTheNextHandshake).
	env, _ = ReadEnvironment(envOf(map[string]string{EnvTLSServerCACertPath: writeFile(t, dir, "ca.crt", ca.certPEM)}))
	tls = ClientOptions(env, nil).ConnectionOptions.TLS
	if !tls.InsecureSkipVerify || tls.VerifyConnection == nil || tls.RootCAs != nil {
		t.Errorf("a CA file: %+v", tls)
	}
}

// fakeWorker is worker.Worker's Run: it waits for the interrupt, then "drains".
type fakeWorker struct {
	interrupted chan struct{}
	drained     time.Duration
}

func (f *fakeWorker) Run(interrupt <-chan any) error {
	<-interrupt
	close(f.interrupted)
	time.Sleep(f.drained)
	return nil
}

func TestSIGTERMStopsTheWorkerWhichDrainsBeforeRunReturns(t *testing.T) {
	ctx, stop := stopOnSignal(context.Background())
	defer stop()
	w := &fakeWorker{interrupted: make(chan struct{}), drained: 300 * time.Millisecond}
	done := make(chan error, 1)
	go func() { done <- runUntilDone(ctx, w) }()
	time.Sleep(50 * time.Millisecond)
	select {
	case <-w.interrupted:
		t.Fatal("interrupted before any signal")
	default:
	}
	sent := time.Now()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case <-w.interrupted:
	case <-time.After(5 * time.Second):
		t.Fatal("SIGTERM did not interrupt the worker")
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if waited := time.Since(sent); waited < 300*time.Millisecond {
		t.Errorf("returned %v after SIGTERM, before the worker drained", waited)
	}
}

func TestTheContinueAsNewRequestIsHeard(t *testing.T) {
	var suite testsuite.WorkflowTestSuite
	suite.SetLogger(quietLogger{})
	env := suite.NewTestWorkflowEnvironment()
	env.RegisterWorkflowWithOptions(func(ctx workflow.Context) (bool, error) {
		asked := ListenForContinueAsNewRequest(ctx)
		before := asked()
		if err := workflow.Await(ctx, asked); err != nil {
			return false, err
		}
		return !before && asked(), nil
	}, workflow.RegisterOptions{Name: "waits"})
	env.RegisterDelayedCallback(func() { env.SignalWorkflow(ContinueAsNewRequested, nil) }, time.Minute)
	env.ExecuteWorkflow("waits")
	var heard bool
	if err := env.GetWorkflowResult(&heard); err != nil || !heard {
		t.Fatalf("the request: %v %v", heard, err)
	}
}
