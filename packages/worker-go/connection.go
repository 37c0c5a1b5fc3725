package twcworker

// The SDK's client options from one Environment: the address and namespace, TLS with the server
// name, the server CA and the client certificate, and the API key, each rotated file read again
// as it is used.

import (
	"crypto/tls"
	"time"

	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/log"
)

// ClientOptions are the SDK's client options for the environment: what the TypeScript library's
// nativeConnectionOptions and clientConnectionOptions give, with the files followed (the client
// certificate and the CA file read at each TLS handshake, the API key file at most every
// DefaultFilesCheckInterval). logger (may be nil) hears of failed reads of a rotated file.
func ClientOptions(env *Environment, logger log.Logger) client.Options {
	return clientOptions(env, DefaultFilesCheckInterval, logger)
}

func clientOptions(env *Environment, every time.Duration, logger log.Logger) client.Options {
	onError := func(err error) {
		if logger != nil {
			logger.Warn("a rotated credentials file could not be read", "error", err)
		}
	}
	options := client.Options{HostPort: env.Address, Namespace: env.Namespace, Logger: logger}
	if env.TLS != nil {
		options.ConnectionOptions.TLS = tlsConfig(env.TLS, onError)
	}
	switch {
	case env.APIKeyPath != "":
		options.Credentials = client.NewAPIKeyDynamicCredentials(FollowAPIKeyFile(env.APIKeyPath, env.APIKey, every, onError).Credentials)
	case env.APIKey != "":
		options.Credentials = client.NewAPIKeyStaticCredentials(env.APIKey)
	}
	return options
}

// tlsConfig is the TLS of the connection. A CA given as a file is verified against by hand, the
// file read at each handshake (crypto/tls's RootCAs cannot change); otherwise crypto/tls verifies
// against the CA data or the system roots.
func tlsConfig(t *TLSEnvironment, onError func(error)) *tls.Config {
	config := &tls.Config{ServerName: t.ServerName, MinVersion: tls.VersionTLS12}
	rotating := &rotatingTLS{env: t, onError: onError}
	if t.ClientCertPath != "" {
		config.GetClientCertificate = rotating.clientCertificate
	}
	switch {
	case t.ServerCAData != nil:
		pool, _ := certPool(t.ServerCAData) // checked by ReadEnvironment
		config.RootCAs = pool
	case t.ServerCAPath != "":
		// Verified in VerifyConnection instead, which every handshake calls.
		config.InsecureSkipVerify = true
		config.VerifyConnection = rotating.verifyConnection
	}
	return config
}
