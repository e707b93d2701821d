package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

const gpuArchEnv = "MLXBUILD_GPU_ARCHITECTURES"

// fullPlan is a link plan as a build writes it, with archives and env.
func fullPlan(archives []string, env map[string]string) *linkplan.Plan {
	return &linkplan.Plan{Backend: "rocm", Static: archives, SearchDirs: []string{}, Dynamic: []string{}, System: []string{},
		RunPaths: []string{}, RpathMode: "runpath", Env: env, RerunPaths: []string{}, RerunEnv: []string{}, Compile: &linkplan.Compile{}}
}

// writePlan writes link.json (and cargo.txt with the same list, unless
// cargoList says otherwise) naming the archives and the list.
func writePlan(t *testing.T, dir string, archives []string, list, cargoList string) string {
	t.Helper()
	plan := filepath.Join(dir, "link.json")
	testutil.WriteFile(t, plan, string(fullPlan(archives, map[string]string{gpuArchEnv: list}).JSON()))
	testutil.WriteFile(t, filepath.Join(dir, "cargo.txt"), "cargo:rustc-link-lib=static=k\ncargo:rustc-env="+gpuArchEnv+"="+cargoList+"\n")
	return plan
}

// hipObject compiles a one-kernel HIP file for one architecture with the
// real hipcc.
func hipObject(t *testing.T, dir, name, gfx string) string {
	t.Helper()
	src := filepath.Join(dir, name+".hip")
	testutil.WriteFile(t, src, "#include <hip/hip_runtime.h>\n__global__ void "+name+"(float* x) { x[threadIdx.x] *= 2.0f; }\n")
	obj := filepath.Join(dir, name+".o")
	testutil.RunOK(t, nil, dir, "hipcc", "--offload-arch="+gfx, "-c", src, "-o", obj)
	return obj
}

func archive(t *testing.T, path string, objs ...string) string {
	t.Helper()
	testutil.RunOK(t, nil, "", "ar", append([]string{"rcs", path}, objs...)...)
	return path
}

// TestGPUCodeWithRealHIPArchives builds kernel archives with the real hipcc
// for gfx90a and gfx1030 and checks them against link plans: the stale
// build of issue 14 (gfx90a code, a plan that says gfx1030) fails, naming
// both lists; matching lists pass; an archive whose objects disagree fails
// even when the union matches the plan.
func TestGPUCodeWithRealHIPArchives(t *testing.T) {
	testutil.NeedTools(t, "hipcc", "ar")
	dir := t.TempDir()
	k90a := hipObject(t, dir, "binary_kernel_gfx90a", "gfx90a")
	k1030 := hipObject(t, dir, "reduce_kernel_gfx1030", "gfx1030")
	stale := archive(t, filepath.Join(dir, "libstale.a"), k90a)
	mixed := archive(t, filepath.Join(dir, "libmixed.a"), k90a, k1030)
	ctx := context.Background()
	run := func(archives []string, list, cargoList string) Result {
		out := t.TempDir()
		return GPUCode{LinkPlan: writePlan(t, out, archives, list, cargoList), Backend: "rocm", ArchEnv: gpuArchEnv}.Run(ctx)
	}

	r := run([]string{stale}, "gfx1030", "gfx1030")
	if r.Status != Fail || len(r.Findings) != 1 {
		t.Fatalf("gfx90a archive, plan gfx1030: %+v", r)
	}
	msg := r.Findings[0].Message
	for _, want := range []string{"binary_kernel_gfx90a.o", "holds code for gfx90a", "link plan says gfx1030", "no code for gfx1030"} {
		if !strings.Contains(msg, want) {
			t.Errorf("finding %q lacks %q", msg, want)
		}
	}
	if r.Findings[0].File != stale || !strings.Contains(r.Findings[0].Fix, "build:rocm again") {
		t.Errorf("finding %+v", r.Findings[0])
	}

	if r := run([]string{stale}, "gfx90a", "gfx90a"); r.Status != Pass {
		t.Errorf("gfx90a archive, plan gfx90a: %+v", r)
	}
	if r := run([]string{mixed}, "gfx1030;gfx90a", "gfx1030;gfx90a"); r.Status != Fail || len(r.Findings) != 2 {
		t.Errorf("objects for one target each, plan for both: %+v", r)
	}
	both := hipObjectMulti(t, dir, "both_kernel", "gfx1030", "gfx90a")
	full := archive(t, filepath.Join(dir, "libfull.a"), both)
	if r := run([]string{full}, "gfx1030;gfx90a", "gfx1030;gfx90a"); r.Status != Pass || !strings.Contains(r.Reason, "1 object") {
		t.Errorf("two targets, plan for both: %+v", r)
	}
	if r := run([]string{full}, "gfx1030", "gfx1030"); r.Status != Fail || !strings.Contains(r.Findings[0].Message, "code for gfx90a, which the plan does not name") {
		t.Errorf("an extra target: %+v", r)
	}

	// cargo.txt telling the consumer another list than link.json.
	r = run([]string{stale}, "gfx90a", "gfx1030")
	if r.Status != Fail || len(r.Findings) != 1 || !strings.HasSuffix(r.Findings[0].File, "cargo.txt") ||
		!strings.Contains(r.Findings[0].Message, "gfx1030, but link.json says gfx90a") {
		t.Errorf("cargo.txt disagreeing: %+v", r)
	}

	// An archive with no GPU code at all (a host-only object).
	host := filepath.Join(dir, "host.c")
	testutil.WriteFile(t, host, "int host_only(void) { return 1; }\n")
	testutil.RunOK(t, nil, dir, "hipcc", "-x", "c", "-c", host, "-o", filepath.Join(dir, "host.o"))
	hostLib := archive(t, filepath.Join(dir, "libhost.a"), filepath.Join(dir, "host.o"))
	if r := run([]string{hostLib}, "gfx1030", "gfx1030"); r.Status != Fail || !strings.Contains(r.Findings[0].Message, "holds rocm GPU code") {
		t.Errorf("no GPU code: %+v", r)
	}
}

func hipObjectMulti(t *testing.T, dir, name string, gfx ...string) string {
	t.Helper()
	src := filepath.Join(dir, name+".hip")
	testutil.WriteFile(t, src, "#include <hip/hip_runtime.h>\n__global__ void "+name+"(float* x) { x[threadIdx.x] += 1.0f; }\n")
	obj := filepath.Join(dir, name+".o")
	args := []string{"-c", src, "-o", obj}
	for _, g := range gfx {
		args = append(args, "--offload-arch="+g)
	}
	testutil.RunOK(t, nil, dir, "hipcc", args...)
	return obj
}

// TestGPUCodeUnreadablePlan: a missing or broken plan fails and says what to do.
func TestGPUCodeUnreadablePlan(t *testing.T) {
	dir := t.TempDir()
	c := GPUCode{LinkPlan: filepath.Join(dir, "link.json"), Backend: "rocm", ArchEnv: gpuArchEnv}
	if r := c.Run(context.Background()); r.Status != Fail || !strings.Contains(r.Findings[0].Fix, "run the build first") {
		t.Errorf("missing plan: %+v", r)
	}
	testutil.WriteFile(t, c.LinkPlan, `{"static": [], "rustc_env": {}`)
	if r := c.Run(context.Background()); r.Status != Fail || !strings.Contains(r.Findings[0].Message, "link.json:1:") {
		t.Errorf("broken plan: %+v", r)
	}
	testutil.WriteFile(t, c.LinkPlan, string(fullPlan(nil, map[string]string{}).JSON()))
	if r := c.Run(context.Background()); r.Status != Fail || !strings.Contains(r.Findings[0].Message, "names no "+gpuArchEnv) {
		t.Errorf("plan without the list: %+v", r)
	}
}

// TestGPUCodeCUDA compares a CUDA archive through cuobjdump; this machine
// has none, so a fake prints the real one's recorded output (sm_80 and
// sm_90a cubins, compute_90a PTX).
func TestGPUCodeCUDA(t *testing.T) {
	bin := t.TempDir()
	elf, _ := filepath.Abs("../../arch/testdata/cuobjdump/list-elf.txt")
	ptx, _ := filepath.Abs("../../arch/testdata/cuobjdump/list-ptx.txt")
	testutil.WriteFile(t, filepath.Join(bin, "cuobjdump"), "#!/bin/sh\ncase \"$1\" in\n--list-elf) /bin/cat '"+elf+"' ;;\n--list-ptx) /bin/cat '"+ptx+"' ;;\nesac\n")
	if err := os.Chmod(filepath.Join(bin, "cuobjdump"), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	testutil.NeedTools(t, "ar")
	testutil.WriteFile(t, filepath.Join(dir, "k.o"), "...\x00.nv_fatbin\x00...")
	lib := archive(t, filepath.Join(dir, "libk.a"), filepath.Join(dir, "k.o"))
	env := func(k string) string {
		if k == "PATH" {
			return bin
		}
		return ""
	}
	for list, pass := range map[string]bool{"80-real;90a": true, "80;90a": false, "86;90a": false, "80-real": false} {
		r := GPUCode{LinkPlan: writePlan(t, t.TempDir(), []string{lib}, list, list), Backend: "cuda", ArchEnv: gpuArchEnv, Env: env}.Run(context.Background())
		if (r.Status == Pass) != pass {
			t.Errorf("plan %s: %+v, want pass=%v", list, r, pass)
		}
		if !pass && (r.Status != Fail || !strings.Contains(r.Findings[0].Message, "holds code for sm_80;sm_90a;compute_90a (PTX)")) {
			t.Errorf("plan %s: %+v", list, r)
		}
	}
	// Without cuobjdump the code cannot be read: skipped with the reason, not passed.
	r := GPUCode{LinkPlan: writePlan(t, t.TempDir(), []string{lib}, "80", "80"), Backend: "cuda", ArchEnv: gpuArchEnv,
		Env: func(string) string { return "" }}.Run(context.Background())
	if r.Status != Skip || !strings.Contains(r.Reason, "cuobjdump was not found") {
		t.Errorf("no cuobjdump: %+v", r)
	}
}
