package linkplan_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

const fingerprint = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// TestFingerprintInEveryRendering: the tree fingerprint a plan holds is
// in link.json, a rustc-env line and links metadata of cargo.txt, and a
// define in cxxflags.txt that a real g++ reads through `@cxxflags.txt` as
// a string literal, the program printing the very value. Under a folder
// with a blank, so the response file's escaping is exercised as a
// consumer's project would.
func TestFingerprintInEveryRendering(t *testing.T) {
	testutil.NeedTools(t, "g++")
	p := &linkplan.Plan{Backend: "cpu", RpathMode: "runpath", Env: map[string]string{"MLXBUILD_BACKEND": "cpu"},
		Compile: &linkplan.Compile{Std: "c++17", Include: []string{}, Defines: []string{"A=1"}}, TreeFingerprint: fingerprint}

	back, err := linkplan.Decode("link.json", p.JSON())
	if err != nil || back.TreeFingerprint != fingerprint {
		t.Fatalf("link.json's tree_fingerprint read back %q, %v; want %s", back.TreeFingerprint, err, fingerprint)
	}
	cargo := p.Cargo()
	for _, want := range []string{"cargo:rustc-env=MLXBUILD_TREE_FINGERPRINT=" + fingerprint + "\n", "cargo:tree_fingerprint=" + fingerprint + "\n", "cargo:rustc-env=MLXBUILD_BACKEND=cpu\n"} {
		if !strings.Contains(cargo, want) {
			t.Errorf("cargo.txt lacks %q:\n%s", want, cargo)
		}
	}
	if p.Env[linkplan.FingerprintName] != "" {
		t.Errorf("rendering cargo.txt changed the plan's own rustc_env: %v", p.Env)
	}

	dir := filepath.Join(t.TempDir(), "My Project")
	testutil.WriteFile(t, filepath.Join(dir, "cxxflags.txt"), p.Cxxflags())
	testutil.WriteFile(t, filepath.Join(dir, "main.cpp"), "#include <cstdio>\nint main() { std::puts(MLXBUILD_TREE_FINGERPRINT); return A - 1; }\n")
	exe := filepath.Join(dir, "main")
	if out, err := exec.Command("g++", "@"+filepath.Join(dir, "cxxflags.txt"), "-o", exe, filepath.Join(dir, "main.cpp")).CombinedOutput(); err != nil {
		t.Fatalf("g++ @cxxflags.txt: %v\n%s\ncxxflags.txt: %s", err, out, p.Cxxflags())
	}
	out, err := exec.Command(exe).Output()
	if err != nil || string(out) != fingerprint+"\n" {
		t.Fatalf("the program built with cxxflags.txt printed %q (%v), want the fingerprint %s", out, err, fingerprint)
	}
}

// TestFingerprintNotHexIsRefused: a hand-edited tree_fingerprint that is
// not a SHA-256 in hex (a quote in it would end cxxflags.txt's string
// literal) is one clear error naming the file and its position.
func TestFingerprintNotHexIsRefused(t *testing.T) {
	p := &linkplan.Plan{Backend: "cpu", RpathMode: "runpath", Env: map[string]string{}, TreeFingerprint: `ab"cd`}
	_, err := linkplan.Decode("out/link.json", p.JSON())
	if err == nil || !strings.Contains(err.Error(), "out/link.json:") || !strings.Contains(err.Error(), "tree_fingerprint") {
		t.Fatalf("want an error naming out/link.json and tree_fingerprint, got %v", err)
	}
	if _, err := linkplan.Read("testdata/rocm-minimlx"); err != nil {
		t.Fatalf("a plan without tree_fingerprint (an older build's) no longer reads: %v", err)
	}
	if _, err := os.Stat("testdata/rocm-minimlx/link.json"); err != nil {
		t.Fatal(err)
	}
}
