package twcworker

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestTheAPIKeyFileIsFollowedWhenRewrittenByRename(t *testing.T) {
	dir := t.TempDir()
	path := writeFile(t, dir, "token", []byte("first\n"))
	var errs []error
	f := FollowAPIKeyFile(path, "first", time.Second, func(err error) { errs = append(errs, err) })
	clock := time.Now()
	f.now = func() time.Time { return clock }

	rotate(t, path, []byte("second\n"))
	if got := f.Current(); got != "first" {
		t.Fatalf("read again before the interval: %q", got)
	}
	clock = clock.Add(time.Second)
	if got, _ := f.Credentials(context.Background()); got != "second" {
		t.Fatalf("after the rename and the interval: %q, want second", got)
	}

	// A failed read, or an empty file, keeps the key in use, and is said once.
	rotate(t, path, []byte(""))
	for range 3 {
		clock = clock.Add(time.Second)
		if got := f.Current(); got != "second" {
			t.Fatalf("an empty file replaced the key: %q", got)
		}
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "the file is empty; the key in use is kept") {
		t.Fatalf("errors: %v", errs)
	}
	rotate(t, path, []byte("third"))
	clock = clock.Add(time.Second)
	if got := f.Current(); got != "third" {
		t.Fatalf("after the empty file: %q", got)
	}
}

// tlsServer accepts TLS connections with the certificate it is given, asks for a client
// certificate (verified against clientCA) and records the common name of each one it saw.
type tlsServer struct {
	addr string
	mu   sync.Mutex
	seen []string
}

func startTLSServer(t *testing.T, cert *testCert, clientCA *testCert) *tlsServer {
	t.Helper()
	pair, err := tls.X509KeyPair(cert.certPEM, cert.keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(clientCA.cert)
	listener, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{pair},
		ClientAuth:   tls.RequireAndVerifyClientCert,
		ClientCAs:    pool,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = listener.Close() })
	s := &tlsServer{addr: listener.Addr().String()}
	go func() {
		for {
			conn, err := listener.Accept()
			if err != nil {
				return
			}
			tc := conn.(*tls.Conn)
			if tc.Handshake() == nil {
				s.mu.Lock()
				s.seen = append(s.seen, tc.ConnectionState().PeerCertificates[0].Subject.CommonName)
				s.mu.Unlock()
			}
			_ = conn.Close()
		}
	}()
	return s
}

func (s *tlsServer) lastSeen() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.seen) == 0 {
		return ""
	}
	return s.seen[len(s.seen)-1]
}

func dialWith(config *tls.Config, addr string) error {
	conn, err := tls.DialWithDialer(&net.Dialer{Timeout: 5 * time.Second}, "tcp", addr, config.Clone())
	if err != nil {
		return err
	}
	defer conn.Close()
	// The server's verdict on the client certificate comes with the first read.
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, err = conn.Read(make([]byte, 1))
	if err != nil && !errors.Is(err, net.ErrClosed) && err.Error() != "EOF" {
		return err
	}
	return nil
}

func TestRotatedTLSFilesArePickedUpAtTheNextHandshake(t *testing.T) {
	dir := t.TempDir()
	ca := makeCert(t, "ca", nil, true)
	otherCA := makeCert(t, "other-ca", nil, true)
	server := startTLSServer(t, makeCert(t, "temporal.example.com", ca, false), ca)
	first := makeCert(t, "worker-1", ca, false)
	second := makeCert(t, "worker-2", ca, false)
	env, err := ReadEnvironment(envOf(map[string]string{
		EnvTLSClientCertPath:   writeFile(t, dir, "tls.crt", first.certPEM),
		EnvTLSClientKeyPath:    writeFile(t, dir, "tls.key", first.keyPEM),
		EnvTLSServerCACertPath: writeFile(t, dir, "ca.crt", ca.certPEM),
		EnvTLSServerName:       "temporal.example.com",
	}))
	if err != nil {
		t.Fatal(err)
	}
	var errs []error
	config := clientOptions(env, time.Second, nil).ConnectionOptions.TLS
	config.GetClientCertificate = (&rotatingTLS{env: env.TLS, onError: func(e error) { errs = append(errs, e) }}).clientCertificate

	if err := dialWith(config, server.addr); err != nil || server.lastSeen() != "worker-1" {
		t.Fatalf("first handshake: %v, server saw %q", err, server.lastSeen())
	}
	// The pair rotated by rename, key first: a handshake between the two renames uses the last good pair.
	rotate(t, env.TLS.ClientKeyPath, second.keyPEM)
	if err := dialWith(config, server.addr); err != nil || server.lastSeen() != "worker-1" {
		t.Fatalf("half-rotated pair: %v, server saw %q", err, server.lastSeen())
	}
	if len(errs) != 1 {
		t.Errorf("the half-rotated pair is not reported: %v", errs)
	}
	rotate(t, env.TLS.ClientCertPath, second.certPEM)
	if err := dialWith(config, server.addr); err != nil || server.lastSeen() != "worker-2" {
		t.Fatalf("after rotation: %v, server saw %q", err, server.lastSeen())
	}

	// The CA file rotated to another CA: the server is refused; rotated back, it is accepted.
	rotate(t, env.TLS.ServerCAPath, otherCA.certPEM)
	if err := dialWith(config, server.addr); err == nil || !strings.Contains(err.Error(), "certificate signed by unknown authority") {
		t.Fatalf("a server of a CA no longer trusted: %v", err)
	}
	rotate(t, env.TLS.ServerCAPath, ca.certPEM)
	if err := dialWith(config, server.addr); err != nil {
		t.Fatalf("CA rotated back: %v", err)
	}

	// The server name is checked: the same server under another name is refused.
	wrongName := config.Clone()
	wrongName.ServerName = "other.example.com"
	if err := dialWith(wrongName, server.addr); err == nil || !strings.Contains(err.Error(), "other.example.com") {
		t.Fatalf("a server certificate for another name: %v", err)
	}
}
