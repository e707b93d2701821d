package arch

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// TestSpecVariableAndProbeOrder: a spec's architectures.env replaces
// MLX_ROCM_ARCHITECTURES and its probes are tried in its order, only those.
func TestSpecVariableAndProbeOrder(t *testing.T) {
	bin := t.TempDir()
	catTool(t, bin, "rocminfo", "rocminfo/strix-halo-gfx1151.txt", 0)
	env := isolated(t, bin)
	env[envKFD] = "testdata/kfd/raphael-7900xtx" // gfx1036;gfx1100
	env[envROCm] = "gfx90a"                      // not the spec's variable: ignored

	o := Options{Env: testEnv(env), Var: "MY_GFX", Probes: []string{"rocminfo", "kfd"}}
	r, err := ResolveROCm(context.Background(), o)
	if err != nil || Join(r.Targets) != "gfx1151" || !strings.HasPrefix(r.Source, "rocminfo") {
		t.Fatalf("rocminfo first: got %v from %q, %v; want gfx1151 from rocminfo", r.Targets, r.Source, err)
	}
	if r.tried[0] != "env MY_GFX: not set" {
		t.Errorf("tried %q, want the spec's variable first", r.tried)
	}

	o.Probes = []string{"kfd"}
	if r, err := ResolveROCm(context.Background(), o); err != nil || Join(r.Targets) != "gfx1036;gfx1100" {
		t.Errorf("kfd alone: got %v, %v", r.Targets, err)
	}

	env["MY_GFX"] = "gfx1030"
	if r, err := ResolveROCm(context.Background(), o); err != nil || Join(r.Targets) != "gfx1030" || r.Source != "env MY_GFX" {
		t.Errorf("the spec's variable: got %v from %q, %v", r.Targets, r.Source, err)
	}

	// Nothing found names the spec's variable.
	env["MY_GFX"] = ""
	o.Probes = []string{}
	_, err = ResolveROCm(context.Background(), o)
	var re *ResolveError
	if !errors.As(err, &re) || re.variable != "MY_GFX" || !strings.Contains(err.Error(), "set MY_GFX ") {
		t.Errorf("no probes, no default: %v, want a ResolveError naming MY_GFX", err)
	}

	o.Probes = []string{"nvidia-smi"}
	if _, err := ResolveROCm(context.Background(), o); fail.ExitCode(err) != 2 || !strings.Contains(err.Error(), `"nvidia-smi" does not find ROCm GPUs`) {
		t.Errorf("a CUDA probe for ROCm: %v, want a configuration error", err)
	}
}

// TestUnknownTargetIsConfiguration: gfx9999 fits the grammar but no
// toolchain knows it; from the variable or the default it is a
// configuration error with suggestions from the table.
func TestUnknownTargetIsConfiguration(t *testing.T) {
	env := isolated(t, t.TempDir())
	env[envROCm] = "gfx1030;gfx9999"
	_, err := ResolveROCm(context.Background(), Options{Env: testEnv(env)})
	var inv *invalidEnvError
	if !errors.As(err, &inv) || fail.ExitCode(err) != 2 {
		t.Fatalf("err = %v, want an *InvalidEnvError (exit 2)", err)
	}
	for _, want := range []string{`MLX_ROCM_ARCHITECTURES="gfx1030;gfx9999"`, `"gfx9999": not a target mlxbuild's table knows`, "did you mean gfx909, gfx900, gfx902?"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	env[envROCm] = ""
	_, err = ResolveROCm(context.Background(), Options{Env: testEnv(env), Default: []string{"gfx1039"}})
	if fail.ExitCode(err) != 2 || !strings.Contains(err.Error(), "the spec's default rocm architectures") {
		t.Errorf("an unknown default: %v, want a configuration error", err)
	}
	if near := nearest("gfx1031", 1); len(near) != 1 || near[0] != "gfx1031" {
		t.Errorf("Nearest(gfx1031) = %v", near)
	}
	if near := nearest("sm_90", 3); len(near) != 0 {
		t.Errorf("Nearest(sm_90) = %v, want nothing close", near)
	}
}
