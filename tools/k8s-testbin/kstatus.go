package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// runKstatus prints what kstatus, the status library of cli-utils that Flux, Config Sync and
// helm's waiter use, makes of each object read from stdin (a JSON array of objects): one JSON
// line per object with its status and message, so a test judges our status by the real rules.
func runKstatus(args []string) int {
	if len(args) != 0 {
		fmt.Fprintln(os.Stderr, "usage: k8s-testbin kstatus < objects.json")
		return 2
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "k8s-testbin kstatus: reading stdin:", err)
		return 1
	}
	// Numbers as int64 where they are whole, as the API machinery reads objects.
	var objects []interface{}
	if err := utiljson.Unmarshal(input, &objects); err != nil {
		fmt.Fprintln(os.Stderr, "k8s-testbin kstatus: stdin is not a JSON array of objects:", err)
		return 1
	}
	out := json.NewEncoder(os.Stdout)
	for _, item := range objects {
		object, ok := item.(map[string]interface{})
		if !ok {
			fmt.Fprintln(os.Stderr, "k8s-testbin kstatus: not an object:", item)
			return 1
		}
		result, err := status.Compute(&unstructured.Unstructured{Object: object})
		if err != nil {
			fmt.Fprintln(os.Stderr, "k8s-testbin kstatus:", err)
			return 1
		}
		if err := out.Encode(map[string]string{"status": result.Status.String(), "message": result.Message}); err != nil {
			return 1
		}
	}
	return 0
}
