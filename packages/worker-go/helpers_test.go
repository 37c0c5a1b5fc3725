package twcworker

import (
	"os"
	"path/filepath"
	"testing"
)

// readRepoFile reads a file of the repository this module lives in (packages/worker-go).
func readRepoFile(t *testing.T, path string) string {
	t.Helper()
	content, err := os.ReadFile(filepath.Join("..", "..", path))
	if err != nil {
		t.Fatal(err)
	}
	return string(content)
}
