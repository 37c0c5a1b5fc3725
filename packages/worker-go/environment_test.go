package twcworker

import (
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
)

var base = map[string]string{
	EnvAddress:        "host:7233",
	EnvNamespace:      "ns",
	EnvDeploymentName: "ns/workers",
	EnvBuildID:        "b1",
}

func envOf(overrides map[string]string, without ...string) func(string) string {
	env := map[string]string{}
	for k, v := range base {
		env[k] = v
	}
	for k, v := range overrides {
		env[k] = v
	}
	for _, k := range without {
		delete(env, k)
	}
	return func(name string) string { return env[name] }
}

func TestTheWorkerIsConfiguredFromTheInjectedVariables(t *testing.T) {
	env, err := ReadEnvironment(envOf(map[string]string{EnvTaskQueue: "q", EnvAPIKey: "k"}))
	if err != nil {
		t.Fatal(err)
	}
	want := &Environment{Address: "host:7233", Namespace: "ns", DeploymentName: "ns/workers", BuildID: "b1", TaskQueue: "q", APIKey: "k", TLS: &TLSEnvironment{}}
	if !reflect.DeepEqual(env, want) {
		t.Fatalf("got %+v, want %+v", env, want)
	}
}

func TestTaskQueueDefaultsToDeploymentNameAndOlderNamesAreAccepted(t *testing.T) {
	env, err := ReadEnvironment(func(name string) string {
		return map[string]string{EnvHostPort: "old:7233", EnvNamespace: "ns", EnvDeploymentName: "d", EnvLegacyBuildID: "b2"}[name]
	})
	if err != nil {
		t.Fatal(err)
	}
	if env.Address != "old:7233" || env.BuildID != "b2" || env.TaskQueue != "d" || env.TLS != nil {
		t.Fatalf("got %+v", env)
	}
}

func TestAMissingVariableIsRefusedByName(t *testing.T) {
	for missing, named := range map[string]string{
		EnvAddress:        "TEMPORAL_ADDRESS or TEMPORAL_HOST_PORT",
		EnvNamespace:      "TEMPORAL_NAMESPACE",
		EnvDeploymentName: "TEMPORAL_DEPLOYMENT_NAME",
		EnvBuildID:        "TEMPORAL_WORKER_BUILD_ID or WORKER_BUILD_ID",
	} {
		_, err := ReadEnvironment(envOf(map[string]string{missing: ""}))
		var envErr *EnvError
		if !errors.As(err, &envErr) || !errors.Is(err, ErrNotSet) {
			t.Fatalf("%s: want an *EnvError of ErrNotSet, got %v", missing, err)
		}
		if envErr.Variables[0] != missing || !strings.Contains(err.Error(), "environment variable "+named+" is not set: expected ") {
			t.Errorf("%s: %q names %v", missing, err, envErr.Variables)
		}
	}
}

func TestTLSIsOnWithTEMPORAL_TLSAnAPIKeyAServerNameOrAServerCA(t *testing.T) {
	ca := makeCert(t, "ca", nil, true)
	for name, overrides := range map[string]map[string]string{
		"TEMPORAL_TLS=true": {EnvTLS: "true"},
		"an API key":        {EnvAPIKey: "k", EnvTLS: "false"},
		"a server name":     {EnvTLSServerName: "temporal.example.com"},
		"CA data":           {EnvTLSServerCACertData: string(ca.certPEM)},
	} {
		env, err := ReadEnvironment(envOf(overrides))
		if err != nil || env.TLS == nil {
			t.Errorf("%s: TLS is off (%v)", name, err)
		}
	}
	env, _ := ReadEnvironment(envOf(map[string]string{EnvTLS: "false"}))
	if env.TLS != nil {
		t.Error("TEMPORAL_TLS=false without credentials: TLS is on")
	}
	_, err := ReadEnvironment(envOf(map[string]string{EnvTLS: "yes"}))
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), `TEMPORAL_TLS is malformed: expected true or false, not "yes"`) {
		t.Errorf("TEMPORAL_TLS=yes: %v", err)
	}
	_, err = ReadEnvironment(envOf(map[string]string{EnvTLSServerCACertData: "not PEM"}))
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), EnvTLSServerCACertData) {
		t.Errorf("CA data not PEM: %v", err)
	}
}

func TestMutualTLSFilesAreNamedAndChecked(t *testing.T) {
	dir := t.TempDir()
	ca := makeCert(t, "ca", nil, true)
	client := makeCert(t, "worker", ca, false)
	crt := writeFile(t, dir, "tls.crt", client.certPEM)
	key := writeFile(t, dir, "tls.key", client.keyPEM)
	caFile := writeFile(t, dir, "ca.crt", ca.certPEM)
	files := map[string]string{EnvTLSClientCertPath: crt, EnvTLSClientKeyPath: key, EnvTLSServerCACertPath: caFile}

	env, err := ReadEnvironment(envOf(files))
	if err != nil {
		t.Fatal(err)
	}
	want := &TLSEnvironment{ServerCAPath: caFile, ClientCertPath: crt, ClientKeyPath: key}
	if !reflect.DeepEqual(env.TLS, want) || !reflect.DeepEqual(env.TLS.Files(), []string{caFile, crt, key}) {
		t.Fatalf("got %+v", env.TLS)
	}

	// No CA file (a mutual TLS Secret without ca.crt): the default roots.
	env, err = ReadEnvironment(envOf(map[string]string{EnvTLSClientCertPath: crt, EnvTLSClientKeyPath: key, EnvTLSServerCACertPath: dir + "/absent.crt"}))
	if err != nil || env.TLS.ServerCAPath != "" {
		t.Fatalf("an absent CA file: %+v, %v", env.TLS, err)
	}

	// A missing key file: named, ErrFileNotFound, and the cause is fs.ErrNotExist.
	_, err = ReadEnvironment(envOf(map[string]string{EnvTLSClientCertPath: crt, EnvTLSClientKeyPath: dir + "/absent.key"}))
	if !errors.Is(err, ErrFileNotFound) || !errors.Is(err, fs.ErrNotExist) ||
		!strings.HasPrefix(err.Error(), "TEMPORAL_TLS_CLIENT_KEY_PATH: file "+dir+"/absent.key does not exist: expected ") {
		t.Errorf("absent key: %v", err)
	}
	var pathErr *fs.PathError
	if !errors.As(err, &pathErr) {
		t.Errorf("the cause is not reachable with errors.As: %v", err)
	}

	// One without the other.
	_, err = ReadEnvironment(envOf(map[string]string{EnvTLSClientCertPath: crt}))
	if !errors.Is(err, ErrNotSet) || !strings.Contains(err.Error(), "TEMPORAL_TLS_CLIENT_CERT_PATH and TEMPORAL_TLS_CLIENT_KEY_PATH") || !strings.Contains(err.Error(), "go together") {
		t.Errorf("cert without key: %v", err)
	}

	// A key of another certificate, a CA file that is not PEM.
	other := makeCert(t, "other", ca, false)
	otherKey := writeFile(t, dir, "other.key", other.keyPEM)
	_, err = ReadEnvironment(envOf(map[string]string{EnvTLSClientCertPath: crt, EnvTLSClientKeyPath: otherKey}))
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "TEMPORAL_TLS_CLIENT_CERT_PATH, TEMPORAL_TLS_CLIENT_KEY_PATH: file ") {
		t.Errorf("mismatched pair: %v", err)
	}
	notPEM := writeFile(t, dir, "bad.crt", []byte("not PEM"))
	_, err = ReadEnvironment(envOf(map[string]string{EnvTLSServerCACertPath: notPEM}))
	if !errors.Is(err, ErrMalformed) || !strings.HasPrefix(err.Error(), "TEMPORAL_TLS_SERVER_CA_CERT_PATH: file "+notPEM+" is malformed: expected PEM certificates") {
		t.Errorf("CA not PEM: %v", err)
	}
}

func TestATokenFileIsTheAPIKeyTrimmedAndFollowedFromItsPath(t *testing.T) {
	dir := t.TempDir()
	token := writeFile(t, dir, "token", []byte("eyJ.token\n"))
	env, err := ReadEnvironment(envOf(map[string]string{EnvAPIKeyPath: token}))
	if err != nil {
		t.Fatal(err)
	}
	if env.APIKey != "eyJ.token" || env.APIKeyPath != token || env.TLS == nil || len(env.TLS.Files()) != 0 {
		t.Fatalf("got %+v", env)
	}
	// TEMPORAL_API_KEY takes its place, but the file must still exist.
	env, _ = ReadEnvironment(envOf(map[string]string{EnvAPIKeyPath: token, EnvAPIKey: "k"}))
	if env.APIKey != "k" || env.APIKeyPath != "" {
		t.Fatalf("with TEMPORAL_API_KEY: %+v", env)
	}
	_, err = ReadEnvironment(envOf(map[string]string{EnvAPIKeyPath: "/absent"}))
	if !errors.Is(err, ErrFileNotFound) || !strings.HasPrefix(err.Error(), "TEMPORAL_API_KEY_PATH: file /absent does not exist") {
		t.Errorf("absent token: %v", err)
	}
	empty := writeFile(t, dir, "empty", []byte("\n"))
	_, err = ReadEnvironment(envOf(map[string]string{EnvAPIKeyPath: empty}))
	if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "TEMPORAL_API_KEY_PATH: file "+empty+" is malformed: expected a bearer token") {
		t.Errorf("empty token: %v", err)
	}
}

// The names are those the controller sets (src/api/reserved-env.ts): read from that file, so
// that a rename there fails here.
func TestTheNamesAreTheControllers(t *testing.T) {
	source := readRepoFile(t, "src/api/reserved-env.ts")
	for _, name := range []string{EnvAddress, EnvHostPort, EnvTLS, EnvTLSServerName, EnvTLSClientCertPath, EnvTLSClientKeyPath,
		EnvTLSServerCACertPath, EnvAPIKey, EnvAPIKeyPath, EnvNamespace, EnvDeploymentName, EnvBuildID, EnvLegacyBuildID, EnvTaskQueue} {
		if !strings.Contains(source, "'"+name+"'") {
			t.Errorf("%s is not in src/api/reserved-env.ts", name)
		}
	}
}
