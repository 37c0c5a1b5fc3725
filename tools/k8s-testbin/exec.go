package main

import (
	"fmt"
	"os"
	"os/exec"

	"golang.org/x/sys/unix"
)

// runExec replaces this process with another program, keeping the parent-death signal that
// main set: the kernel preserves it across execve, so a binary we did not build (the
// Temporal CLI) also stops when the environment's owner dies.
func runExec(args []string) int {
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: k8s-testbin exec PROGRAM [ARGS...]")
		return 2
	}
	path, err := exec.LookPath(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, "k8s-testbin exec:", err)
		return 127
	}
	err = unix.Exec(path, args, os.Environ())
	fmt.Fprintln(os.Stderr, "k8s-testbin exec:", err)
	return 126
}
