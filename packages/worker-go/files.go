package twcworker

// Credentials kept in files that something else renews: a projected service-account token the
// kubelet rewrites before it expires, TLS files cert-manager or a Secret update rotates (the
// kubelet swaps a Secret volume's files by renaming a directory link). Each is read again as it
// is used, so a rotated file is picked up without a restart; a failed read keeps what was in use.

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"
)

// DefaultFilesCheckInterval is how often a followed API key file is read again, as the
// TypeScript library does.
const DefaultFilesCheckInterval = 2 * time.Second

// APIKeyFile follows a file holding a bearer token: Current reads it again when the last read is
// older than the interval, and keeps the key in use when the file is unreadable or empty.
type APIKeyFile struct {
	path    string
	every   time.Duration
	onError func(error)
	now     func() time.Time

	mu        sync.Mutex
	key       string
	readAt    time.Time
	lastError string
}

// FollowAPIKeyFile follows path, starting from the key read at start (current). onError, when not
// nil, hears of each new kind of failed read.
func FollowAPIKeyFile(path, current string, every time.Duration, onError func(error)) *APIKeyFile {
	if every <= 0 {
		every = DefaultFilesCheckInterval
	}
	return &APIKeyFile{path: path, every: every, onError: onError, now: time.Now, key: current, readAt: time.Now()}
}

// Current is the key to send now.
func (f *APIKeyFile) Current() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	now := f.now()
	if now.Sub(f.readAt) < f.every {
		return f.key
	}
	f.readAt = now
	content, err := os.ReadFile(f.path)
	if err == nil && strings.TrimSpace(string(content)) == "" {
		err = errors.New("the file is empty")
	}
	if err != nil {
		if f.onError != nil && err.Error() != f.lastError {
			f.onError(fmt.Errorf("reading %s (%s): %w; the key in use is kept", f.path, EnvAPIKeyPath, err))
		}
		f.lastError = err.Error()
		return f.key
	}
	f.lastError = ""
	f.key = strings.TrimSpace(string(content))
	return f.key
}

// Credentials is the key as the SDK's dynamic API key credentials ask for it, at each call.
func (f *APIKeyFile) Credentials(context.Context) (string, error) { return f.Current(), nil }

// rotatingTLS reads the TLS files at each handshake: the client certificate and its key, and the
// server CA when it is a file. A pair that does not parse (one file rotated before the other) or
// an unreadable file keeps the last good one.
type rotatingTLS struct {
	env     *TLSEnvironment
	onError func(error)

	mu   sync.Mutex
	cert *tls.Certificate
	pool *x509.CertPool
}

func (r *rotatingTLS) report(err error) {
	if r.onError != nil {
		r.onError(err)
	}
}

// clientCertificate is tls.Config.GetClientCertificate: the pair the files hold now.
func (r *rotatingTLS) clientCertificate(*tls.CertificateRequestInfo) (*tls.Certificate, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	cert, err := tls.LoadX509KeyPair(r.env.ClientCertPath, r.env.ClientKeyPath)
	if err == nil {
		r.cert = &cert
	} else if r.cert != nil {
		r.report(fmt.Errorf("reading the client certificate (%s, %s): %w; the last one read is used", r.env.ClientCertPath, r.env.ClientKeyPath, err))
	}
	if r.cert == nil {
		return nil, fmt.Errorf("the client certificate (%s, %s): %w", r.env.ClientCertPath, r.env.ClientKeyPath, err)
	}
	return r.cert, nil
}

// serverCAs is the CA pool the file holds now.
func (r *rotatingTLS) serverCAs() (*x509.CertPool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	content, err := os.ReadFile(r.env.ServerCAPath)
	if err == nil {
		var pool *x509.CertPool
		if pool, err = certPool(content); err == nil {
			r.pool = pool
		}
	}
	if err != nil && r.pool != nil {
		r.report(fmt.Errorf("reading the server CA %s: %w; the last one read is used", r.env.ServerCAPath, err))
	}
	if r.pool == nil {
		return nil, fmt.Errorf("the server CA %s: %w", r.env.ServerCAPath, err)
	}
	return r.pool, nil
}

// verifyConnection verifies the server's chain against the CA file's current content, for the
// name the connection asked for (the server name, or the address's host): what crypto/tls does
// with RootCAs, with roots that may change between handshakes.
func (r *rotatingTLS) verifyConnection(cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return errors.New("the server sent no certificate")
	}
	pool, err := r.serverCAs()
	if err != nil {
		return err
	}
	opts := x509.VerifyOptions{DNSName: cs.ServerName, Roots: pool, Intermediates: x509.NewCertPool()}
	for _, c := range cs.PeerCertificates[1:] {
		opts.Intermediates.AddCert(c)
	}
	_, err = cs.PeerCertificates[0].Verify(opts)
	return err
}
