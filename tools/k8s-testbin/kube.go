package main

import (
	"os"

	"k8s.io/component-base/cli"
	kubectl "k8s.io/kubectl/pkg/cmd"
	kubectlutil "k8s.io/kubectl/pkg/cmd/util"
	apiserver "k8s.io/kubernetes/cmd/kube-apiserver/app"
	controllermanager "k8s.io/kubernetes/cmd/kube-controller-manager/app"
)

func runAPIServer(args []string) int {
	command := apiserver.NewAPIServerCommand()
	command.SetArgs(args)
	return cli.Run(command)
}

func runControllerManager(args []string) int {
	command := controllermanager.NewControllerManagerCommand()
	command.SetArgs(args)
	return cli.Run(command)
}

func runKubectl(args []string) int {
	os.Args = append([]string{"kubectl"}, args...)
	command := kubectl.NewDefaultKubectlCommand()
	if err := cli.RunNoErrOutput(command); err != nil {
		kubectlutil.CheckErr(err)
	}
	return 0
}
