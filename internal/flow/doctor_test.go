package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// stubLib builds lib<name>.so in dir with gcc, as a fake prefix's library.
func stubLib(t *testing.T, dir, name string) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), name+".c")
	testutil.WriteFile(t, src, "int "+name+"_stub(void) { return 0; }\n")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	so := filepath.Join(dir, "lib"+name+".so")
	testutil.RunOK(t, nil, "", "gcc", "-shared", "-fPIC", "-Wl,-soname,lib"+name+".so.1", "-o", so, src)
	return so
}

// rocmLibFindings are doctor's findings of the rocm spec's libraries.
func rocmLibFindings(t *testing.T, dir string) (map[string]flow.Finding, bool) {
	t.Helper()
	fs, missing, err := flow.Doctor(context.Background(), flow.Options{Dir: dir, Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}, "rocm")
	if err != nil {
		t.Fatal(err)
	}
	libs := map[string]flow.Finding{}
	for _, f := range fs {
		if f.Backend == "rocm" && strings.HasPrefix(f.What, "lib") {
			libs[f.What] = f
		}
	}
	return libs, missing
}

// TestDoctorSearchesWhereTheLinkPlanSearches: the project's link.search
// override and the spec's link.stubs hold the libraries the toolchain
// lacks (stub libraries in fake prefixes); doctor finds each where the
// link plan does, and plan neither warns nor leaves them out of the run
// path. With one library gone, both name it, and the same directories.
func TestDoctorSearchesWhereTheLinkPlanSearches(t *testing.T) {
	testutil.NeedTools(t, "cmake", "hipcc", "gcc")
	prefix := t.TempDir()
	libs, stubs := filepath.Join(prefix, "lib"), filepath.Join(prefix, "stubs")
	rocblas := stubLib(t, libs, "rocblas")
	hipblaslt := stubLib(t, libs, "hipblaslt")
	hipfft := stubLib(t, stubs, "hipfft")
	p := newProject(t, "link:\n  search: ["+libs+"]\n  stubs: ["+stubs+"]\n")
	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030")

	found, missing := rocmLibFindings(t, p.Dir)
	for what, want := range map[string]string{"librocblas": rocblas, "libhipblaslt": hipblaslt, "libhipfft": hipfft} {
		if f, ok := found[what]; !ok || !f.OK || f.Detail != want {
			t.Errorf("doctor: %s = %+v, want found at %s (where the link plan finds it)", what, f, want)
		}
	}
	for _, what := range []string{"libamdhip64", "libhiprand"} {
		if f := found[what]; !f.OK {
			t.Errorf("doctor: %s = %+v, want found in the toolchain", what, f)
		}
	}
	if missing {
		t.Errorf("doctor reports a missing prerequisite: %+v", found)
	}
	plan := planOutput(t, p.Dir)
	if strings.Contains(plan, "would stop before configure") {
		t.Errorf("doctor finds every library but plan:rocm says the build would stop:\n%s", plan)
	}
	if !strings.Contains(plan, "run path:  runpath ") || !strings.Contains(plan, ":"+libs+"\n") || strings.Contains(plan, stubs+"\n") {
		t.Errorf("plan:rocm's run path lacks the override's %s or has the stubs %s:\n%s", libs, stubs, plan)
	}

	if err := os.Remove(hipfft); err != nil {
		t.Fatal(err)
	}
	found, missing = rocmLibFindings(t, p.Dir)
	f := found["libhipfft"]
	if f.OK || !missing || !strings.Contains(f.Detail, libs) || !strings.Contains(f.Detail, stubs) {
		t.Errorf("doctor without libhipfft.so: %+v (missing %v), want a failure naming %s and %s", f, missing, libs, stubs)
	}
	plan = planOutput(t, p.Dir)
	if !strings.Contains(plan, "libhipfft.so: not in ") || !strings.Contains(plan, stubs) {
		t.Errorf("plan:rocm does not name the missing libhipfft.so where doctor does:\n%s", plan)
	}
	if strings.Contains(plan, "librocblas.so: not in") {
		t.Errorf("plan:rocm misses librocblas.so, which doctor finds:\n%s", plan)
	}
}

func planOutput(t *testing.T, dir string) string {
	t.Helper()
	var out bytes.Buffer
	if err := flow.Plan(context.Background(), flow.Options{Dir: dir, Stdout: &out, Stderr: &bytes.Buffer{}}, "plan:rocm", "rocm"); err != nil {
		t.Fatalf("plan:rocm: %v", err)
	}
	return out.String()
}
