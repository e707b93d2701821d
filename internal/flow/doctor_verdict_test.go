package flow_test

import (
	"bytes"
	"context"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestDoctorVerdictPerBackend: a project that declares cuda, on a machine
// without a CUDA toolkit, is healthy for what nobody asked for: cuda gets
// one line saying this machine cannot build it, and no failure. Asked for
// by doctor -backend=cuda, MLXBUILD_BACKENDS or a Cargo feature, cuda's
// gap is a failure, in full. An unknown backend asked for is a usage error.
func TestDoctorVerdictPerBackend(t *testing.T) {
	testutil.NeedTools(t, "cmake", "hipcc")
	p := newProject(t, "link:\n  remove: [rocblas, hipblaslt, hipfft]\n")
	testutil.WriteFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), "source:\n  dir: third_party/mlx\n  pin: "+examplePin+"\n"+
		"backends:\n  rocm:\n    overlay: patches-rocm\n    spec: rocm.yaml\n    merge: extend\n  cuda: {}\n")
	nocuda := filepath.Join(t.TempDir(), "nocuda")
	t.Setenv("CUDA_HOME", nocuda)
	t.Setenv("ROCM_PATH", "")
	doctor := func(t *testing.T, asked string) (map[string]flow.Finding, []flow.Finding, bool) {
		t.Helper()
		fs, missing, err := flow.Doctor(context.Background(), flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}, asked)
		if err != nil {
			t.Fatal(err)
		}
		verdicts := map[string]flow.Finding{}
		var cuda []flow.Finding
		for _, f := range fs {
			if f.Verdict {
				verdicts[f.What] = f
			} else if f.Backend == "cuda" {
				cuda = append(cuda, f)
			}
		}
		return verdicts, cuda, missing
	}
	cudaGap := "CUDA_HOME=" + nocuda + " is not a usable CUDA toolkit: no executable " + nocuda + "/bin/nvcc; set CUDA_HOME to the directory that holds bin/nvcc (e.g. /usr/local/cuda), or unset it"

	verdicts, cuda, missing := doctor(t, "")
	if missing || len(cuda) != 0 {
		t.Errorf("doctor with nothing asked: missing %v, cuda checked in full %+v; want no failure", missing, cuda)
	}
	want := map[string]flow.Finding{
		"cuda":  {Backend: "cuda", What: "cuda", Verdict: true, Detail: "this machine cannot build it: CUDA toolkit: " + cudaGap},
		"metal": {Backend: "metal", What: "metal", Verdict: true, Detail: "this machine cannot build it: platform: not for linux (builds on darwin)"},
	}
	for name, w := range want {
		if verdicts[name] != w {
			t.Errorf("doctor's %s line:\n  %+v\nwant\n  %+v", name, verdicts[name], w)
		}
	}
	// ROCM_PATH is unset: the root is a default location, said once
	// (it was "ROCm 5.2.21153 at /usr (/usr)").
	if r := verdicts["rocm"]; !r.OK || !regexp.MustCompile(`^this machine can build it \(ROCm [0-9.]+ at /[^ ()]*\)$`).MatchString(r.Detail) {
		t.Errorf("doctor's rocm line: %+v, want \"this machine can build it (ROCm <version> at <root>)\"", r)
	}
	if _, ok := verdicts["cpu"]; ok || len(verdicts) != 3 {
		t.Errorf("with nothing asked, cpu is what a build builds and is checked in full; verdicts %v", verdicts)
	}

	for _, ask := range []struct{ name, env, asked string }{
		{"-backend=cuda", "", "cuda"}, {"MLXBUILD_BACKENDS", "MLXBUILD_BACKENDS", ""}, {"Cargo feature", "CARGO_FEATURE_CUDA", ""},
	} {
		t.Run(ask.name, func(t *testing.T) {
			if ask.env != "" {
				t.Setenv(ask.env, "cuda")
			}
			verdicts, cuda, missing := doctor(t, ask.asked)
			gap := flow.Finding{Backend: "cuda", What: "CUDA toolkit", Detail: cudaGap}
			if !missing || len(cuda) < 2 || cuda[1] != gap {
				t.Errorf("cuda asked for: missing %v, findings %+v; want the failure %+v", missing, cuda, gap)
			}
			if _, ok := verdicts["cuda"]; ok {
				t.Errorf("cuda asked for still has a one-line verdict")
			}
		})
	}

	_, _, err := flow.Doctor(context.Background(), flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}, "vulkan")
	if want := `unknown backend "vulkan": mlxbuild builds cpu, rocm, cuda and metal; request one of those (requested by doctor -backend=vulkan)`; err == nil || err.Error() != want || fail.KindOf(err) != fail.Config {
		t.Errorf("doctor -backend=vulkan: %v, want a usage error %q", err, want)
	}
}
