package flow_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestPlanRunPathIsTheLinkPlans: a project's link.search override puts its
// directory into link.json's run_paths, and plan's run path line says
// exactly those directories, in that order (rpath.dirs alone left the
// override's out). Stub directories (link.stubs) are in neither.
func TestPlanRunPathIsTheLinkPlans(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	extra, stubs := filepath.Join(t.TempDir(), "lib"), filepath.Join(t.TempDir(), "stubs")
	for _, d := range []string{extra, stubs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	testutil.WriteFile(t, filepath.Join(p.Dir, "cpu.yaml"), "rpath:\n  dirs: [/opt/first]\nlink:\n  search: ["+extra+"]\n  stubs: ["+stubs+"]\n")
	testutil.WriteFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), "source:\n  dir: third_party/mlx\n  pin: "+examplePin+"\nbackends:\n  cpu:\n    spec: cpu.yaml\n    merge: extend\n")
	ctx := context.Background()
	var stderr bytes.Buffer
	sum, err := flow.Build(ctx, flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &stderr}, "cpu")
	if err != nil {
		t.Fatalf("build:cpu: %v\n%s", err, stderr.String())
	}
	plan, err := linkplan.Read(sum.Out)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(plan.RunPaths, ":") != "/opt/first:"+extra {
		t.Fatalf("link.json run_paths %q, want rpath.dirs then the override's %s", plan.RunPaths, extra)
	}
	var out bytes.Buffer
	if err := flow.Plan(ctx, flow.Options{Dir: p.Dir, Stdout: &out, Stderr: &bytes.Buffer{}}, "plan:cpu", "cpu"); err != nil {
		t.Fatalf("plan:cpu: %v", err)
	}
	want := "run path:  " + plan.RpathMode + " " + strings.Join(plan.RunPaths, ":") + "\n"
	if !strings.Contains(out.String(), want) {
		t.Errorf("plan:cpu does not say link.json's run path %q:\n%s", want, out.String())
	}
}
