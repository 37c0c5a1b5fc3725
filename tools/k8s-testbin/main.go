// Command k8s-testbin is a multi-call binary holding the Kubernetes components that the
// project's local environment runs: the first argument picks one, the rest are its flags.
// Each component runs in a process of its own, so their global flag sets never meet.
package main

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

var components = map[string]func(args []string) int{
	"etcd":                    runEtcd,
	"kube-apiserver":          runAPIServer,
	"kube-controller-manager": runControllerManager,
	"kubectl":                 runKubectl,
	"exec":                    runExec,
	"kstatus":                 runKstatus,
}

func main() {
	if len(os.Args) < 2 || components[os.Args[1]] == nil {
		fmt.Fprintln(os.Stderr, "usage: k8s-testbin etcd|kube-apiserver|kube-controller-manager|kubectl|exec|kstatus [flags]")
		os.Exit(2)
	}
	// Components started by the environment must not outlive it, even when the parent is
	// killed without a chance to clean up; kubectl is an interactive tool and is exempt.
	if os.Args[1] != "kubectl" && os.Getenv("K8S_TESTBIN_KEEP_ORPHANED") == "" {
		dieWithParent()
	}
	os.Exit(components[os.Args[1]](os.Args[2:]))
}

// dieWithParent asks the kernel to send SIGTERM when the process that started us exits.
func dieWithParent() {
	parent := os.Getppid()
	if err := unix.Prctl(unix.PR_SET_PDEATHSIG, uintptr(unix.SIGTERM), 0, 0, 0); err != nil {
		fmt.Fprintln(os.Stderr, "k8s-testbin: PR_SET_PDEATHSIG:", err)
		return
	}
	if os.Getppid() != parent { // the parent died before the request took effect
		os.Exit(1)
	}
}
