package cargoworkspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestCIUsesDebiansCargo: in CI the Cargo tests run the cargo setup
// installs from Debian (cargo-web on Debian 12, /usr/bin/cargo), never
// one from outside Debian ahead on PATH: a rustup Cargo under
// ~/.cargo/bin once hid that Debian 12's own cargo (1.65) cannot build
// the examples, so CI passed where every fresh machine failed.
func TestCIUsesDebiansCargo(t *testing.T) {
	if os.Getenv("CI") == "" {
		t.Skip("CI only: on a developer machine any cargo of Rust " + flow.MinRust + " or newer will do")
	}
	testutil.NeedTools(t, "cargo")
	path, _ := exec.LookPath("cargo")
	if path != "/usr/bin/cargo" {
		t.Fatalf("CI runs cargo from %s, not Debian's /usr/bin/cargo that setup installs; CI proves the tests pass with Debian's toolchains: take %s off PATH (.ci/run sets PATH without $HOME)", path, filepath.Dir(path))
	}
	out := testutil.RunOK(t, nil, "", "cargo", "--version")
	m := regexp.MustCompile(`^cargo (\d+\.\d+\.\d+)`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("cargo --version says %q", out)
	}
	if have := version.Must(version.NewVersion(m[1])); have.LessThan(version.Must(version.NewVersion(flow.MinRust))) {
		t.Fatalf("Debian's cargo is %s, older than Rust %s the examples need: setup must install cargo-web and rustc-web on Debian 12", have, flow.MinRust)
	}
}

// TestExamplesSayWhichRust: every crate of the examples declares the
// oldest Rust it builds with (rust-version), the one setup's Rust meets.
func TestExamplesSayWhichRust(t *testing.T) {
	manifests, _ := filepath.Glob("../../examples/*/Cargo.toml")
	more, _ := filepath.Glob("../../examples/*/*/Cargo.toml")
	manifests = append(manifests, more...)
	packages := 0
	for _, m := range manifests {
		data, err := os.ReadFile(m)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "[package]") {
			continue // a workspace's root
		}
		packages++
		if !strings.Contains(string(data), "\nrust-version = \""+flow.MinRust+"\"\n") {
			t.Errorf("%s does not say rust-version = %q", m, flow.MinRust)
		}
	}
	if packages < 5 {
		t.Errorf("found %d example crates in %q, want the 5 of cargo-consumer and cargo-workspace", packages, manifests)
	}
}
