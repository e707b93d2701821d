package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestTreeFingerprint: a build's link plan carries the tree's content
// fingerprint, the same value in link.json, cargo.txt (rustc-env) and
// cxxflags.txt (a string define). It stays through a no-op build, when
// an overlay file is only touched and when the cache moves to another folder, and changes when
// an overlay file's content changes.
func TestTreeFingerprint(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	file, src := cpuOverlay(t, p, "mlx/backend/cpu/binary.cpp", "// cpu overlay: a\n")

	build := func(t *testing.T) string {
		t.Helper()
		var stderr bytes.Buffer
		sum, err := flow.Build(context.Background(), flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &stderr}, "cpu")
		if err != nil {
			t.Fatalf("build:cpu: %v\n%s", err, stderr.String())
		}
		return fingerprintOf(t, sum.Out)
	}

	first := build(t)
	if again := build(t); again != first {
		t.Errorf("a no-op build changed the fingerprint: %s -> %s", first, again)
	}
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(file, later, later); err != nil {
		t.Fatal(err)
	}
	if touched := build(t); touched != first {
		t.Errorf("touching an overlay file changed the fingerprint: %s -> %s", first, touched)
	}
	t.Setenv("MLXBUILD_CACHE", filepath.Join(t.TempDir(), "elsewhere", "cache"))
	if moved := build(t); moved != first {
		t.Errorf("a cache in another folder gives another fingerprint: %s -> %s", first, moved)
	}
	testutil.WriteFile(t, file, src+"// cpu overlay: b\n")
	if edited := build(t); edited == first {
		t.Errorf("an overlay file's new content left the fingerprint at %s", first)
	}
}

// fingerprintOf is the tree fingerprint of the build whose out/ is dir,
// failing unless link.json, cargo.txt and cxxflags.txt all say the same
// 64-hex-digit value.
func fingerprintOf(t *testing.T, dir string) string {
	t.Helper()
	plan, err := linkplan.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	f := plan.TreeFingerprint
	if len(f) != 64 {
		t.Fatalf("link.json's tree_fingerprint is %q, want 64 hex digits", f)
	}
	for name, want := range map[string]string{
		"cargo.txt":    "cargo:rustc-env=" + linkplan.FingerprintName + "=" + f + "\n",
		"cxxflags.txt": " -D" + linkplan.FingerprintName + `=\"` + f + `\"`,
	} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), want) {
			t.Errorf("%s lacks %q (link.json's fingerprint):\n%s", name, want, data)
		}
	}
	return f
}
