package testutil

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// RecordingCompilers makes CC and CXX stand-ins that append every
// invocation to the returned log and run the real compilers (cc, c++).
// env holds the two assignments (CC=..., CXX=...) for a child's
// environment; a test that starts no child of its own sets them with
// t.Setenv.
func RecordingCompilers(t *testing.T) (env []string, log string) {
	t.Helper()
	dir := t.TempDir()
	log = filepath.Join(dir, "invocations")
	for _, c := range []struct{ name, real string }{{"CC", "cc"}, {"CXX", "c++"}} {
		name := c.name
		path, err := exec.LookPath(c.real)
		if err != nil {
			t.Fatal(err)
		}
		script := filepath.Join(dir, strings.ToLower(name)+"-recorder")
		WriteFile(t, script, "#!/bin/sh\necho \""+name+" $*\" >> '"+log+"'\nexec '"+path+"' \"$@\"\n")
		if err := os.Chmod(script, 0o755); err != nil {
			t.Fatal(err)
		}
		env = append(env, name+"="+script)
	}
	return env, log
}
