package arch

import (
	"context"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

func TestROCmEnvWins(t *testing.T) {
	bin := t.TempDir()
	catTool(t, bin, "rocminfo", "rocminfo/strix-halo-gfx1151.txt", 0)
	env := isolated(t, bin)
	env[envROCm] = " gfx1151, gfx90a;gfx1151 gfx1030:xnack-"
	env[envKFD] = "testdata/kfd/raphael-7900xtx"
	r, err := ResolveROCm(context.Background(), Options{Env: testEnv(env)})
	if err != nil {
		t.Fatal(err)
	}
	if Join(r.Targets) != "gfx1030:xnack-;gfx1151;gfx90a" || r.Source != "env MLX_ROCM_ARCHITECTURES" {
		t.Errorf("got %v from %q", r.Targets, r.Source)
	}
}

func TestROCmEnvRejectsInjection(t *testing.T) {
	env := isolated(t, t.TempDir())
	env[envROCm] = "gfx1100;$(touch /tmp/pwned)"
	_, err := ResolveROCm(context.Background(), Options{Env: testEnv(env)})
	var inv *invalidEnvError
	if !errors.As(err, &inv) || inv.variable != envROCm || !strings.Contains(err.Error(), "MLX_ROCM_ARCHITECTURES") {
		t.Fatalf("err = %v, want an *InvalidEnvError naming MLX_ROCM_ARCHITECTURES", err)
	}
}

// TestEmptyArchitectureListIsRefused: a list of separators only would reach
// CMake as an empty list (HIP then builds for gfx803); it is a
// configuration error naming the variable, even with GPUs to probe.
func TestEmptyArchitectureListIsRefused(t *testing.T) {
	for _, bad := range []string{";", " , ", ";;", ",;\t"} {
		env := isolated(t, t.TempDir())
		env[envKFD] = "testdata/kfd/raphael-7900xtx"
		env[envROCm] = bad
		_, err := ResolveROCm(context.Background(), Options{Env: testEnv(env)})
		var inv *invalidEnvError
		if !errors.As(err, &inv) || inv.variable != envROCm || inv.Kind() != fail.Config || !strings.Contains(err.Error(), "lists no architecture") {
			t.Errorf("%s=%q: err = %v, want an *InvalidEnvError naming it", envROCm, bad, err)
		}
		env[EnvCUDA] = bad
		_, err = ResolveCUDA(context.Background(), Options{Env: testEnv(env)})
		if !errors.As(err, &inv) || inv.variable != EnvCUDA || !strings.Contains(err.Error(), EnvCUDA) {
			t.Errorf("%s=%q: err = %v, want an *InvalidEnvError naming it", EnvCUDA, bad, err)
		}
	}
}

func TestROCmKFDTwelveNodes(t *testing.T) {
	// Node 0 is the CPU; eleven GPU nodes with duplicates, an unknown but
	// well-formed target (gfx1170), and nodes 10 and 11 that a string sort
	// would put between 1 and 2.
	versions := []uint64{0, 90402, 90402, 90402, 90402, 110501, 90010, 110000, 110000, 100306, 110700, 120001}
	env := isolated(t, t.TempDir())
	env[envKFD] = kfdTree(t, versions)
	r, err := ResolveROCm(context.Background(), Options{Env: testEnv(env)})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"gfx1036", "gfx1100", "gfx1151", "gfx1170", "gfx1201", "gfx90a", "gfx942"}
	if !reflect.DeepEqual(r.Targets, want) || r.Source != "kfd nodes 1-11" {
		t.Errorf("got %v from %q, want %v from kfd nodes 1-11", r.Targets, r.Source, want)
	}
	if len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "gfx1170") {
		t.Errorf("warnings = %q, want one about the unknown gfx1170", r.Warnings)
	}
	nodes, err := readKFD(env[envKFD])
	if err != nil || len(nodes) != 12 {
		t.Fatalf("ReadKFD: %d nodes, %v", len(nodes), err)
	}
	for i, n := range nodes {
		if n.id != i {
			t.Errorf("node %d read at position %d: nodes are not in numeric order", n.id, i)
		}
	}
}

func TestROCmKFDRecordedHost(t *testing.T) {
	env := isolated(t, t.TempDir())
	env[envKFD] = "testdata/kfd/raphael-7900xtx"
	r, err := ResolveROCm(context.Background(), Options{Env: testEnv(env)})
	if err != nil || Join(r.Targets) != "gfx1036;gfx1100" || r.Source != "kfd nodes 1,2" {
		t.Errorf("got %v from %q, %v; want gfx1036;gfx1100 from kfd nodes 1,2", r.Targets, r.Source, err)
	}
}

func TestROCmKFDOnlyCPUFallsToRocminfo(t *testing.T) {
	bin := t.TempDir()
	catTool(t, bin, "rocminfo", "rocminfo/mixed-gfx1201-gfx1151-grep.txt", 0)
	env := isolated(t, bin)
	env[envKFD] = kfdTree(t, []uint64{0})
	r, err := ResolveROCm(context.Background(), Options{Env: testEnv(env)})
	if err != nil || Join(r.Targets) != "gfx1151;gfx1201" {
		t.Fatalf("got %v, %v", r.Targets, err)
	}
	if !strings.HasPrefix(r.Source, "rocminfo agents") || !strings.Contains(r.tried[1], "1 node, none a GPU") {
		t.Errorf("source %q, tried %q", r.Source, r.tried)
	}
}

func TestROCmRocminfoFromROCMPath(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	catTool(t, filepath.Join(root, "bin"), "rocminfo", "rocminfo/strix-halo-gfx1151.txt", 0)
	pathBin := t.TempDir()
	catTool(t, pathBin, "rocminfo", "rocminfo/two-7900xtx-agent3.txt", 0)
	env := isolated(t, pathBin)
	env["ROCM_PATH"] = root
	r, err := ResolveROCm(context.Background(), Options{Env: testEnv(env)})
	if err != nil || Join(r.Targets) != "gfx1151" || r.Source != "rocminfo agents 2" {
		t.Errorf("got %v from %q, %v: $ROCM_PATH/bin/rocminfo must win over PATH", r.Targets, r.Source, err)
	}
}

// The machine's own rocminfo (Debian's, no GPU here) exits 1 with
// "ROCk module is NOT loaded": the result must be the clear failure.
func TestROCmRealRocminfoWithoutGPU(t *testing.T) {
	real := "/usr/bin/rocminfo"
	if _, err := os.Stat(real); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("rocminfo is not installed (apt-get install rocminfo)")
		}
		t.Fatal("rocminfo is not installed; .ci/run installs it")
	}
	env := isolated(t, "/usr/bin")
	env[envKFD] = defaultKFDTopology
	r, err := ResolveROCm(context.Background(), Options{Env: testEnv(env)})
	if _, serr := os.Stat(defaultKFDTopology); serr == nil {
		// A real AMD GPU: the no-GPU failure cannot be shown, so the real
		// probes must resolve it instead.
		if err != nil || len(r.Targets) == 0 {
			t.Fatalf("this machine has a KFD topology, yet resolving gave %v, %v", r, err)
		}
		for _, g := range r.Targets {
			if verr := validate(ROCm, g); verr != nil {
				t.Error(verr)
			}
		}
		return
	}
	var re *ResolveError
	if !errors.As(err, &re) {
		t.Fatalf("got %v, %v; want a *ResolveError", r, err)
	}
	msg := err.Error()
	for _, want := range []string{"MLX_ROCM_ARCHITECTURES", "rocminfo (/usr/bin/rocminfo): exit status 1", "ROCk module is NOT loaded", "kfd " + defaultKFDTopology, "spec default: none"} {
		if !strings.Contains(msg, want) {
			t.Errorf("failure message lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "\x1b[") {
		t.Errorf("failure message keeps rocminfo's color codes:\n%q", msg)
	}
}

// A rocminfo that never answers is cut off at the probe timeout, with its
// whole process group (the script's sleep child too).
func TestROCmRocminfoHangIsCutOff(t *testing.T) {
	bin := t.TempDir()
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	fakeTool(t, bin, "rocminfo", "/bin/sleep 1000 &\necho $! > '"+pidFile+"'\nwait")
	env := isolated(t, bin)
	env[envProbeTimeout] = "300ms"
	start := time.Now()
	_, err := ResolveROCm(context.Background(), Options{Env: testEnv(env)})
	took := time.Since(start)
	var re *ResolveError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "no answer within 300ms, process group killed") {
		t.Fatalf("err = %v, want the timeout in the failure", err)
	}
	if took > 5*time.Second {
		t.Errorf("resolution took %s with a 300ms probe timeout", took)
	}
	b, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	deadline := time.Now().Add(2 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("the fake's child %d outlived the timeout", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestROCmDefaultWithNote: the spec's default list, used when no GPU is
// found, is noted by DefaultNote with the caller's verb, and is not among
// the warnings every caller prints (a no-op build has nothing to say).
func TestROCmDefaultWithNote(t *testing.T) {
	env := isolated(t, t.TempDir())
	r, err := ResolveROCm(context.Background(), Options{Env: testEnv(env), Default: []string{"gfx1100", "gfx90a", "gfx1100"}})
	if err != nil || Join(r.Targets) != "gfx1100;gfx90a" || r.Source != "spec default" {
		t.Fatalf("got %v from %q, %v", r.Targets, r.Source, err)
	}
	if len(r.Warnings) != 0 {
		t.Errorf("warnings = %q, want none", r.Warnings)
	}
	for verb, want := range map[string]string{
		Building:   "no GPU found; building for the spec's default list gfx1100;gfx90a;gfx1100 (set MLX_ROCM_ARCHITECTURES to choose)",
		WouldBuild: "no GPU found; would build for the spec's default list gfx1100;gfx90a;gfx1100 (set MLX_ROCM_ARCHITECTURES to choose)",
	} {
		if got := r.DefaultNote(verb); got != want {
			t.Errorf("DefaultNote(%q) = %q, want %q", verb, got, want)
		}
	}
	chosen := maps.Clone(env)
	chosen["MLX_ROCM_ARCHITECTURES"] = "gfx90a"
	if r, err := ResolveROCm(context.Background(), Options{Env: testEnv(chosen), Default: []string{"gfx1030"}}); err != nil || r.DefaultNote(Building) != "" {
		t.Errorf("from the variable: note %q, %v; want none", r.DefaultNote(Building), err)
	}
	if _, err := ResolveROCm(context.Background(), Options{Env: testEnv(env), Default: []string{"gfx1100;x"}}); err == nil {
		t.Error("an invalid spec default passed")
	}
}

func TestROCmNothingFoundNamesEverything(t *testing.T) {
	env := isolated(t, t.TempDir())
	_, err := ResolveROCm(context.Background(), Options{Env: testEnv(env)})
	var re *ResolveError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v", err)
	}
	if len(re.tried) != 4 || !strings.Contains(re.tried[2], "rocminfo: not found in") {
		t.Errorf("tried = %q", re.tried)
	}
	if !strings.Contains(err.Error(), `MLX_ROCM_ARCHITECTURES="gfx1100;gfx1151"`) {
		t.Errorf("the failure does not show how to set the variable:\n%s", err)
	}
}

func TestROCmOverrideWarnings(t *testing.T) {
	bin := t.TempDir()
	// What rocminfo prints on a gfx1151 host under HSA_OVERRIDE_GFX_VERSION=11.0.0.
	fakeTool(t, bin, "rocminfo", `printf 'Agent 2\n  Name: gfx1100\n  Device Type: GPU\n'`)
	env := isolated(t, bin)
	env["HSA_OVERRIDE_GFX_VERSION"] = "11.0.0"
	env["HSA_OVERRIDE_GFX_VERSION_1"] = "10.3.0"
	env["ROCR_VISIBLE_DEVICES"] = "0"
	env["HIP_VISIBLE_DEVICES"] = "1"
	r, err := ResolveROCm(context.Background(), Options{Env: testEnv(env)})
	if err != nil || Join(r.Targets) != "gfx1100" {
		t.Fatalf("got %v, %v", r.Targets, err)
	}
	joined := strings.Join(r.Warnings, "\n")
	for _, want := range []string{"HSA_OVERRIDE_GFX_VERSION=11.0.0", "report gfx1100", "MLX_ROCM_ARCHITECTURES=gfx1100",
		"HSA_OVERRIDE_GFX_VERSION_1=10.3.0", "gfx1030", "ROCR_VISIBLE_DEVICES=0", "HIP_VISIBLE_DEVICES=1"} {
		if !strings.Contains(joined, want) {
			t.Errorf("warnings lack %q:\n%s", want, joined)
		}
	}
}

func TestProbeTimeoutSetting(t *testing.T) {
	for in, want := range map[string]time.Duration{"": defaultProbeTimeout, "2s": 2 * time.Second, "20": 20 * time.Second, "0.5": 500 * time.Millisecond} {
		d, err := Options{Env: testEnv(map[string]string{envProbeTimeout: in})}.probeTimeout()
		if err != nil || d != want {
			t.Errorf("%q: %v, %v; want %v", in, d, err, want)
		}
	}
	for _, bad := range []string{"soon", "-1s", "0"} {
		_, err := ResolveROCm(context.Background(), Options{Env: testEnv(map[string]string{envProbeTimeout: bad})})
		var inv *invalidEnvError
		if !errors.As(err, &inv) || inv.variable != envProbeTimeout {
			t.Errorf("%q: err = %v, want an *InvalidEnvError naming %s", bad, err, envProbeTimeout)
		}
	}
}

func TestCUDAEnv(t *testing.T) {
	env := isolated(t, t.TempDir())
	env[EnvCUDA] = "90a,86;75 120 86"
	r, err := ResolveCUDA(context.Background(), Options{Env: testEnv(env)})
	if err != nil || Join(r.Targets) != "75;86;90a;120" || r.Source != "env MLX_CUDA_ARCHITECTURES" {
		t.Errorf("got %v from %q, %v", r.Targets, r.Source, err)
	}
	env[EnvCUDA] = "native"
	if r, err := ResolveCUDA(context.Background(), Options{Env: testEnv(env)}); err != nil || Join(r.Targets) != "native" {
		t.Errorf("native: %v, %v", r.Targets, err)
	}
	for _, bad := range []string{"native;86", "8.6", "sm_86", "86;$(id)"} {
		env[EnvCUDA] = bad
		_, err := ResolveCUDA(context.Background(), Options{Env: testEnv(env)})
		var inv *invalidEnvError
		if !errors.As(err, &inv) || inv.variable != EnvCUDA {
			t.Errorf("%q: err = %v, want an *InvalidEnvError naming %s", bad, err, EnvCUDA)
		}
	}
}

func TestCUDANvidiaSMIMixed(t *testing.T) {
	bin := t.TempDir()
	args := filepath.Join(t.TempDir(), "args")
	abs, _ := filepath.Abs("testdata/nvidia-smi/mixed-titanv-rtx5880.txt")
	fakeTool(t, bin, "nvidia-smi", `echo "$@" > '`+args+`'; /bin/cat '`+abs+`'`)
	env := isolated(t, bin)
	r, err := ResolveCUDA(context.Background(), Options{Env: testEnv(env)})
	if err != nil || Join(r.Targets) != "70;89" || r.Source != "nvidia-smi rows 0,1" {
		t.Errorf("got %v from %q, %v", r.Targets, r.Source, err)
	}
	b, _ := os.ReadFile(args)
	if got := strings.TrimSpace(string(b)); got != "--query-gpu=compute_cap --format=csv,noheader" {
		t.Errorf("nvidia-smi was called with %q", got)
	}
}

func TestCUDATwoIdenticalGPUs(t *testing.T) {
	bin := t.TempDir()
	catTool(t, bin, "nvidia-smi", "nvidia-smi/h200x2-noheader.txt", 0)
	r, err := ResolveCUDA(context.Background(), Options{Env: testEnv(isolated(t, bin))})
	if err != nil || Join(r.Targets) != "90a" || r.Source != "nvidia-smi rows 0,1" {
		t.Errorf("got %v from %q, %v; want 90a from nvidia-smi rows 0,1", r.Targets, r.Source, err)
	}
}

func TestCUDAFromCUDAHome(t *testing.T) {
	home := t.TempDir()
	if err := os.Mkdir(filepath.Join(home, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	catTool(t, filepath.Join(home, "bin"), "nvidia-smi", "nvidia-smi/single-8.9-with-header.txt", 0)
	pathBin := t.TempDir()
	catTool(t, pathBin, "nvidia-smi", "nvidia-smi/h200x2-noheader.txt", 0)
	env := isolated(t, pathBin)
	env["CUDA_HOME"] = home
	r, err := ResolveCUDA(context.Background(), Options{Env: testEnv(env)})
	if err != nil || Join(r.Targets) != "89" {
		t.Errorf("got %v, %v: $CUDA_HOME/bin/nvidia-smi must win over PATH", r.Targets, err)
	}
}

func TestCUDAUnsupportedField(t *testing.T) {
	bin := t.TempDir()
	catTool(t, bin, "nvidia-smi", "nvidia-smi/unsupported-field.txt", 2)
	env := isolated(t, bin)
	_, err := ResolveCUDA(context.Background(), Options{Env: testEnv(env)})
	var re *ResolveError
	if !errors.As(err, &re) || !strings.Contains(err.Error(), "compute_cap field") || !strings.Contains(err.Error(), "MLX_CUDA_ARCHITECTURES=") {
		t.Fatalf("err = %v", err)
	}
	// With a spec default the build goes on, with a warning.
	r, err := ResolveCUDA(context.Background(), Options{Env: testEnv(env), Default: []string{"86", "75"}})
	if err != nil || Join(r.Targets) != "75;86" || r.Source != "spec default" || r.DefaultNote(Building) == "" {
		t.Errorf("default: %+v, %v", r, err)
	}
}

func TestCUDANoNvidiaSMI(t *testing.T) {
	env := isolated(t, t.TempDir())
	_, err := ResolveCUDA(context.Background(), Options{Env: testEnv(env)})
	if err == nil || !strings.Contains(err.Error(), "nvidia-smi: not found in") || !strings.Contains(err.Error(), "MLX_CUDA_ARCHITECTURES") {
		t.Errorf("err = %v", err)
	}
}

// Without the kernel's KFD topology rocminfo is not run (ROCr could list no
// GPU), and the directory is read on every resolve, never cached: once it
// appears, rocminfo runs and its GPU is used.
func TestROCmNoKernelKFDSkipsRocminfoUntilItAppears(t *testing.T) {
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	abs, err := filepath.Abs(filepath.Join("testdata", "rocminfo", "strix-halo-gfx1151.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fakeTool(t, bin, "rocminfo", "echo > '"+marker+"'\n/bin/cat '"+abs+"'")
	env := isolated(t, bin)
	delete(env, envKFD) // the kernel's own path, as on a user's machine
	old := kernelKFD
	kernelKFD = filepath.Join(t.TempDir(), "kfd", "topology", "nodes")
	t.Cleanup(func() { kernelKFD = old })

	o := Options{Env: testEnv(env), Default: []string{"gfx1030"}}
	r, err := ResolveROCm(context.Background(), o)
	if err != nil || Join(r.Targets) != "gfx1030" {
		t.Fatalf("got %v, %v; want the default", r.Targets, err)
	}
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("rocminfo ran although %s does not exist", kernelKFD)
	}
	if !strings.Contains(strings.Join(r.tried, "\n"), "rocminfo: not run: "+kernelKFD+" does not exist") {
		t.Errorf("tried %q does not say why rocminfo was skipped", r.tried)
	}

	// The driver loads: a topology with only a CPU node, so rocminfo decides.
	if err := os.MkdirAll(filepath.Join(kernelKFD, "0"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(kernelKFD, "0", "properties"), []byte("gfx_target_version 0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = ResolveROCm(context.Background(), o)
	if err != nil || Join(r.Targets) != "gfx1151" {
		t.Fatalf("got %v, %v; want rocminfo's gfx1151", r.Targets, err)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("rocminfo did not run once the topology exists: %v", err)
	}
}
