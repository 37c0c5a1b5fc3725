package twcworker

// What the Temporal Worker Controller tells each worker container through its environment and
// the files its variables point at: where Temporal is and how to reach it, and which Worker
// Deployment, build and task queue the worker is. The same names, defaults and refusals as the
// TypeScript library (packages/worker/src/environment.ts).

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// The variables the controller sets (src/api/reserved-env.ts), and the task queue, which is the
// user's own unless a pool's taskQueue sets it.
const (
	EnvAddress             = "TEMPORAL_ADDRESS"
	EnvHostPort            = "TEMPORAL_HOST_PORT" // the older name of TEMPORAL_ADDRESS
	EnvNamespace           = "TEMPORAL_NAMESPACE"
	EnvDeploymentName      = "TEMPORAL_DEPLOYMENT_NAME"
	EnvBuildID             = "TEMPORAL_WORKER_BUILD_ID"
	EnvLegacyBuildID       = "WORKER_BUILD_ID" // the older name of TEMPORAL_WORKER_BUILD_ID
	EnvTaskQueue           = "TEMPORAL_TASK_QUEUE"
	EnvTLS                 = "TEMPORAL_TLS"
	EnvTLSServerName       = "TEMPORAL_TLS_SERVER_NAME"
	EnvTLSClientCertPath   = "TEMPORAL_TLS_CLIENT_CERT_PATH"
	EnvTLSClientKeyPath    = "TEMPORAL_TLS_CLIENT_KEY_PATH"
	EnvTLSServerCACertPath = "TEMPORAL_TLS_SERVER_CA_CERT_PATH"
	EnvTLSServerCACertData = "TEMPORAL_TLS_SERVER_CA_CERT_DATA" // the SDKs' environment configuration; the controller does not set it
	EnvAPIKey              = "TEMPORAL_API_KEY"
	EnvAPIKeyPath          = "TEMPORAL_API_KEY_PATH"
)

// The kinds of EnvError, for errors.Is.
var (
	// ErrNotSet: a required variable is not set (or empty).
	ErrNotSet = errors.New("not set")
	// ErrFileNotFound: a variable names a file that does not exist (also errors.Is fs.ErrNotExist).
	ErrFileNotFound = errors.New("file does not exist")
	// ErrMalformed: a variable, or the file it names, does not hold what was expected.
	ErrMalformed = errors.New("malformed")
)

// EnvError is a variable of the environment, or a file it names, that the worker cannot run with.
// It names the variables (Variables) and says what was expected; errors.Is matches its kind
// (ErrNotSet, ErrFileNotFound, ErrMalformed) and the cause it wraps (e.g. fs.ErrNotExist).
type EnvError struct {
	// The variables concerned: one, or the alternatives or the pair that go together.
	Variables []string
	// The file the variable names, when it is about a file.
	Path string
	// What the variable should hold.
	Expected string
	// ErrNotSet, ErrFileNotFound or ErrMalformed.
	Kind error
	// The underlying failure (reading or parsing the file), if any.
	Cause error
	// together: the variables go together, and only some are set.
	together bool
}

func (e *EnvError) Error() string {
	var b strings.Builder
	switch {
	case e.together:
		fmt.Fprintf(&b, "%s go together", strings.Join(e.Variables, " and "))
	case e.Kind == ErrNotSet:
		fmt.Fprintf(&b, "environment variable %s is not set", strings.Join(e.Variables, " or "))
	case e.Path != "" && e.Kind == ErrFileNotFound:
		fmt.Fprintf(&b, "%s: file %s does not exist", strings.Join(e.Variables, ", "), e.Path)
	case e.Path != "":
		fmt.Fprintf(&b, "%s: file %s is malformed", strings.Join(e.Variables, ", "), e.Path)
	default:
		fmt.Fprintf(&b, "%s is malformed", strings.Join(e.Variables, " and "))
	}
	if e.Expected != "" {
		fmt.Fprintf(&b, ": expected %s", e.Expected)
	}
	if e.Cause != nil && e.Kind != ErrFileNotFound {
		fmt.Fprintf(&b, " (%v)", e.Cause)
	}
	return b.String()
}

// Is matches the kind of the error: errors.Is(err, ErrNotSet).
func (e *EnvError) Is(target error) bool { return target == e.Kind }

// Unwrap is the cause: errors.Is(err, fs.ErrNotExist), errors.As(err, &pathErr).
func (e *EnvError) Unwrap() error { return e.Cause }

// Environment is what the controller told the worker.
type Environment struct {
	Address   string
	Namespace string
	// DeploymentName is the Worker Deployment's name in Temporal (`<namespace>/<name>`).
	DeploymentName string
	BuildID        string
	// TaskQueue is TEMPORAL_TASK_QUEUE, or the deployment name when it is not set.
	TaskQueue string
	// APIKey is TEMPORAL_API_KEY, or the content of the file TEMPORAL_API_KEY_PATH names (trimmed).
	APIKey string
	// APIKeyPath is the file APIKey was read from: read again as it is renewed (a projected
	// service-account token). Empty when TEMPORAL_API_KEY gave the key.
	APIKeyPath string
	// TLS is nil when TLS is off; on with TEMPORAL_TLS=true, an API key, a server name, a server
	// CA or a client certificate.
	TLS *TLSEnvironment
}

// TLSEnvironment is the TLS material: files are named, not copied, since they are rotated.
type TLSEnvironment struct {
	ServerName string
	// ServerCAData is TEMPORAL_TLS_SERVER_CA_CERT_DATA, which takes the place of the file.
	ServerCAData []byte
	// ServerCAPath is TEMPORAL_TLS_SERVER_CA_CERT_PATH when it exists at start. The file may be
	// absent (a mutual TLS Secret without ca.crt): the system roots are used then.
	ServerCAPath string
	// The client certificate and its key, both or neither.
	ClientCertPath string
	ClientKeyPath  string
}

// Files are the TLS files the worker follows as they are rotated.
func (t *TLSEnvironment) Files() []string {
	if t == nil {
		return nil
	}
	var files []string
	for _, f := range []string{t.ServerCAPath, t.ClientCertPath, t.ClientKeyPath} {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// ReadEnvironment reads the variables the controller sets, and the files they name, refusing a
// missing or malformed one with an *EnvError that names it. getenv is os.Getenv when nil; an
// empty value counts as unset.
func ReadEnvironment(getenv func(string) string) (*Environment, error) {
	if getenv == nil {
		getenv = os.Getenv
	}
	required := func(expected string, names ...string) (string, error) {
		for _, name := range names {
			if v := getenv(name); v != "" {
				return v, nil
			}
		}
		return "", &EnvError{Variables: names, Kind: ErrNotSet, Expected: expected}
	}
	deploymentName, err := required("the Worker Deployment's name in Temporal, which the controller sets", EnvDeploymentName)
	if err != nil {
		return nil, err
	}
	env := &Environment{DeploymentName: deploymentName, TaskQueue: getenv(EnvTaskQueue)}
	if env.Address, err = required("the Temporal frontend's host:port, which the controller sets", EnvAddress, EnvHostPort); err != nil {
		return nil, err
	}
	if env.Namespace, err = required("the Temporal namespace, which the controller sets", EnvNamespace); err != nil {
		return nil, err
	}
	if env.BuildID, err = required("the build ID, which the controller sets", EnvBuildID, EnvLegacyBuildID); err != nil {
		return nil, err
	}
	if env.TaskQueue == "" {
		env.TaskQueue = deploymentName
	}

	tlsOn := false
	switch v := getenv(EnvTLS); v {
	case "", "false":
	case "true":
		tlsOn = true
	default:
		return nil, &EnvError{Variables: []string{EnvTLS}, Kind: ErrMalformed, Expected: fmt.Sprintf("true or false, not %q", v)}
	}

	env.APIKey = getenv(EnvAPIKey)
	// The file must exist even when TEMPORAL_API_KEY takes its place, as in the TypeScript library.
	if path := getenv(EnvAPIKeyPath); path != "" {
		content, err := readRequired(EnvAPIKeyPath, path, "a bearer token (a projected service-account token)")
		if err != nil {
			return nil, err
		}
		key := strings.TrimSpace(string(content))
		if key == "" {
			return nil, &EnvError{Variables: []string{EnvAPIKeyPath}, Path: path, Kind: ErrMalformed, Expected: "a bearer token, not an empty file"}
		}
		if env.APIKey == "" {
			env.APIKey, env.APIKeyPath = key, path
		}
	}

	t := &TLSEnvironment{ServerName: getenv(EnvTLSServerName)}
	if data := getenv(EnvTLSServerCACertData); data != "" {
		if _, err := certPool([]byte(data)); err != nil {
			return nil, &EnvError{Variables: []string{EnvTLSServerCACertData}, Kind: ErrMalformed, Expected: "PEM certificates", Cause: err}
		}
		t.ServerCAData = []byte(data)
	} else if path := getenv(EnvTLSServerCACertPath); path != "" {
		content, err := os.ReadFile(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			// The default roots, until the file appears.
		case err != nil:
			return nil, &EnvError{Variables: []string{EnvTLSServerCACertPath}, Path: path, Kind: ErrMalformed, Expected: "a readable file of PEM certificates", Cause: err}
		default:
			if _, err := certPool(content); err != nil {
				return nil, &EnvError{Variables: []string{EnvTLSServerCACertPath}, Path: path, Kind: ErrMalformed, Expected: "PEM certificates", Cause: err}
			}
			t.ServerCAPath = path
		}
	}
	certPath, keyPath := getenv(EnvTLSClientCertPath), getenv(EnvTLSClientKeyPath)
	var certPEM, keyPEM []byte
	if certPath != "" {
		if certPEM, err = readRequired(EnvTLSClientCertPath, certPath, "the client certificate (PEM)"); err != nil {
			return nil, err
		}
	}
	if keyPath != "" {
		if keyPEM, err = readRequired(EnvTLSClientKeyPath, keyPath, "the client certificate's key (PEM)"); err != nil {
			return nil, err
		}
	}
	if (certPath == "") != (keyPath == "") {
		return nil, &EnvError{
			Variables: []string{EnvTLSClientCertPath, EnvTLSClientKeyPath},
			Kind:      ErrNotSet,
			Expected:  "both set, or neither",
			together:  true,
		}
	}
	if certPath != "" {
		if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
			return nil, &EnvError{
				Variables: []string{EnvTLSClientCertPath, EnvTLSClientKeyPath},
				Path:      certPath + " and " + keyPath,
				Kind:      ErrMalformed,
				Expected:  "a PEM certificate and its PEM private key",
				Cause:     err,
			}
		}
		t.ClientCertPath, t.ClientKeyPath = certPath, keyPath
	}
	if tlsOn || env.APIKey != "" || t.ServerName != "" || t.ServerCAData != nil || t.ServerCAPath != "" || t.ClientCertPath != "" {
		env.TLS = t
	}
	return env, nil
}

func readRequired(name, path, expected string) ([]byte, error) {
	content, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &EnvError{Variables: []string{name}, Path: path, Kind: ErrFileNotFound, Expected: expected, Cause: err}
	}
	if err != nil {
		return nil, &EnvError{Variables: []string{name}, Path: path, Kind: ErrMalformed, Expected: "a readable file: " + expected, Cause: err}
	}
	return content, nil
}

func certPool(pem []byte) (*x509.CertPool, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, errors.New("no PEM certificate in it")
	}
	return pool, nil
}
