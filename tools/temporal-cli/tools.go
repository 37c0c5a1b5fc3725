//go:build tools

// Package tools pins the Temporal CLI whose `server start-dev` is the local environment's Temporal.
// From v1.6 the CLI's go.mod replaces its cliext module with a local directory, so `go install
// cli@version` refuses it; this module builds the same main package with cliext taken from the
// module proxy at the release's commit.
package tools

import _ "github.com/temporalio/cli/cmd/temporal"
