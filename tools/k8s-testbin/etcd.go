package main

import (
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
)

// runEtcd serves a single-member etcd for the test apiserver. fsync is off: the data lives in
// a temporary directory that is thrown away with the environment.
func runEtcd(args []string) int {
	flags := flag.NewFlagSet("etcd", flag.ContinueOnError)
	dataDir := flags.String("data-dir", "", "directory for etcd's data (required)")
	clientURL := flags.String("listen-client-url", "http://127.0.0.1:2379", "client URL")
	peerURL := flags.String("listen-peer-url", "http://127.0.0.1:2380", "peer URL")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if *dataDir == "" {
		fmt.Fprintln(os.Stderr, "etcd: --data-dir is required")
		return 2
	}
	client, err := url.Parse(*clientURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd: --listen-client-url:", err)
		return 2
	}
	peer, err := url.Parse(*peerURL)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd: --listen-peer-url:", err)
		return 2
	}

	cfg := embed.NewConfig()
	cfg.Dir = *dataDir
	cfg.ListenClientUrls = []url.URL{*client}
	cfg.AdvertiseClientUrls = []url.URL{*client}
	cfg.ListenPeerUrls = []url.URL{*peer}
	cfg.AdvertisePeerUrls = []url.URL{*peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = true
	cfg.LogLevel = "warn"

	server, err := embed.StartEtcd(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcd: start:", err)
		return 1
	}
	defer server.Close()
	select {
	case <-server.Server.ReadyNotify():
		fmt.Fprintln(os.Stderr, "etcd: ready on", client.String())
	case <-time.After(60 * time.Second):
		fmt.Fprintln(os.Stderr, "etcd: not ready after 60s")
		return 1
	}

	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	select {
	case <-stop:
		return 0
	case err := <-server.Err():
		fmt.Fprintln(os.Stderr, "etcd:", err)
		return 1
	}
}
