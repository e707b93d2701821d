package backends

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// TestSelectMatrix runs every backend on every platform, alone and combined
// with every other, and checks the outcome against the selection rules:
// rocm and cuda are Linux-only, metal macOS-only, cpu both; rocm with cuda
// or metal is a conflict; any other pair is refused as two GPU backends.
func TestSelectMatrix(t *testing.T) {
	platforms := map[string][]string{"cpu": {"linux", "darwin"}, "rocm": {"linux"}, "cuda": {"linux"}, "metal": {"darwin"}}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		for _, a := range configs.Names {
			for _, b := range append([]string{""}, configs.Names...) {
				name := fmt.Sprintf("%s/%s+%s", goos, a, b)
				t.Run(name, func(t *testing.T) {
					env := map[string]string{"MLXBUILD_BACKENDS": b}
					reqs := Requests("build:"+a, a, func(k string) string { return env[k] })
					got, err := Select(reqs, goos, configs.Builtin)
					want := a
					if b != "" && b != "cpu" && (a == "cpu" || a == b) {
						want = b
					}
					conflict := a != "cpu" && b != "" && b != "cpu" && a != b
					switch {
					case conflict:
						if err == nil || !strings.Contains(err.Error(), a) || !strings.Contains(err.Error(), b) || !strings.Contains(err.Error(), "together with") {
							t.Fatalf("want a conflict naming %s and %s, got %q, %v", a, b, got, err)
						}
					case !slices.Contains(platforms[want], goos):
						if err == nil || !strings.Contains(err.Error(), "builds only on") || !strings.Contains(err.Error(), goos) {
							t.Fatalf("want a platform error for %s on %s, got %q, %v", want, goos, got, err)
						}
					default:
						if err != nil || got != want {
							t.Fatalf("got %q, %v; want %q", got, err, want)
						}
					}
					if err != nil {
						if fail.ExitCode(err) != 2 {
							t.Fatalf("selection errors exit 2, got %T", err)
						}
					}
				})
			}
		}
	}
}

// TestSelectSources covers the cargo features, the default and unknown names.
func TestSelectSources(t *testing.T) {
	env := map[string]string{"CARGO_FEATURE_ROCM": "1"}
	get := func(k string) string { return env[k] }
	if got, err := Select(Requests("", "", get), "linux", configs.Builtin); err != nil || got != "rocm" {
		t.Errorf("cargo feature rocm: %q %v", got, err)
	}
	env["CARGO_FEATURE_CUDA"] = "1"
	_, err := Select(Requests("", "", get), "linux", configs.Builtin)
	if err == nil || !strings.Contains(err.Error(), "CARGO_FEATURE_ROCM") || !strings.Contains(err.Error(), "CARGO_FEATURE_CUDA") {
		t.Errorf("two cargo features: %v", err)
	}
	if got, err := Select(nil, "linux", configs.Builtin); err != nil || got != "cpu" {
		t.Errorf("no request: %q %v", got, err)
	}
	env = map[string]string{"MLXBUILD_BACKENDS": "rcom"}
	if _, err := Select(Requests("", "", get), "linux", configs.Builtin); err == nil || !strings.Contains(err.Error(), `did you mean "rocm"`) {
		t.Errorf("unknown backend: %v", err)
	}
}
