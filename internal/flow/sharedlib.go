package flow

import (
	"os"
	"os/exec"
	"path/filepath"
)

// findSharedLib looks for the link-time name lib<name>.so in dir.
func findSharedLib(dir, name string) (string, bool) {
	p := filepath.Join(dir, "lib"+name+".so")
	if _, err := os.Stat(p); err == nil {
		return p, true
	}
	return "", false
}

// lookPath is exec.LookPath, named here so tests can read the intent.
var lookPath = exec.LookPath
