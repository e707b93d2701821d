package arch

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// testEnv is an injected environment: only what a test sets exists.
func testEnv(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

// isolated returns an environment in which no real probe can answer: the
// KFD topology and ROCM_PATH point into an empty temp dir and PATH holds
// only bin (where a test puts its fakes). Callers add what they need.
func isolated(t testing.TB, bin string) map[string]string {
	t.Helper()
	empty := t.TempDir()
	return map[string]string{
		envKFD:      filepath.Join(empty, "no-kfd"),
		"ROCM_PATH": empty,
		"CUDA_HOME": empty,
		"PATH":      bin,
	}
}

// fakeTool writes an executable script named name into dir. The script is
// a stand-in for a real tool (it runs /bin/sh because that is what such
// fakes are); mlxbuild itself still starts it with explicit arguments.
func fakeTool(t testing.TB, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// catTool is a fake that prints a recorded output and exits with code.
func catTool(t testing.TB, dir, name, fixture string, code int) string {
	t.Helper()
	abs, err := filepath.Abs(filepath.Join("testdata", fixture))
	if err != nil {
		t.Fatal(err)
	}
	return fakeTool(t, dir, name, "/bin/cat '"+abs+"'\nexit "+strconv.Itoa(code))
}

// kfdTree writes a KFD topology with one node per gfx_target_version.
func kfdTree(t testing.TB, versions []uint64) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), "nodes")
	for i, v := range versions {
		dir := filepath.Join(root, strconv.Itoa(i))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		props := "cpu_cores_count 0\nsimd_count 128\ngfx_target_version " + strconv.FormatUint(v, 10) + "\nvendor_id 4098\n"
		if v == 0 {
			props = "cpu_cores_count 32\nsimd_count 0\ngfx_target_version 0\nvendor_id 0\n"
		}
		if err := os.WriteFile(filepath.Join(dir, "properties"), []byte(props), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}
