// Package registry shows what adding a backend and a verify check takes:
// the backend is its spec (testdata/fake.yaml) and one registration
// (fakeBackend below), the check one registration (fakeCheck); no other
// list in mlxbuild is edited, yet names, messages, validation, the toolchain
// constraint, the cache layout, plan, build and verify all take them. It is
// a package of its own because the registrations stay for the life of the
// test binary: no other package's tests see the fake backend.
package registry

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/go-version"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
	"github.com/mlxbuild/mlxbuild/internal/verify"
)

// fakeToolchain is the fake backend's located toolchain: its version comes
// from FAKE_VERSION, so the test can make it too old for the spec.
type fakeToolchain struct {
	root    string
	version *version.Version
}

func (f *fakeToolchain) String() string { return "fake toolchain " + f.version.String() }
func (f *fakeToolchain) Info(env string) *backends.ToolchainInfo {
	return &backends.ToolchainInfo{Name: "fake", Env: env, Root: f.root, Lib: filepath.Join(f.root, "lib"), Version: f.version}
}
func (f *fakeToolchain) CMakeDefines(string) (map[string]string, error) { return nil, nil }
func (f *fakeToolchain) CMakeSetup(string) (map[string]string, []string, error) {
	return nil, nil, nil
}
func (f *fakeToolchain) SupportsArch(string) error { return nil }

func locateFake(env func(string) string, _ string) (backends.Toolchain, error) {
	v, err := version.NewVersion(cmpOr(env("FAKE_VERSION"), "1.2.0"))
	if err != nil {
		return nil, err
	}
	return &fakeToolchain{root: cmpOr(env("FAKE_HOME"), "/opt/fake"), version: v}, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// fakeBackend is the fake backend's one registration, as backends/<name>.go
// would make it.
var fakeBackend = &backends.Backend{Name: "fake", Order: 4, Toolchain: &backends.ToolchainKind{
	Locate: locateFake, Title: "fake toolchain", Env: "FAKE_HOME", Install: "install the fake toolchain",
}}

// fakeCheck is the fake check's one registration: no project-file
// section, no folder, and it needs the build (it reads the link plan).
var fakeCheck = configs.VerifyCheck{Name: "fake_check", NeedsBuild: true}

// linkPlanNames is the fake check: the build's link plan names the fake
// backend.
type linkPlanNames struct{ out string }

func (linkPlanNames) Name() string { return "fake_check" }
func (c linkPlanNames) Run(context.Context) verify.Result {
	plan, err := linkplan.Read(c.out)
	if err != nil || plan.Backend != "fake" {
		return verify.Result{Check: "fake_check", Status: verify.Fail, Reason: "no link plan of the fake backend", Findings: []verify.Finding{{Message: cmpOr(errString(err), "backend "+planBackend(plan))}}}
	}
	return verify.Result{Check: "fake_check", Status: verify.Pass, Reason: "link plan of backend fake in " + c.out}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func planBackend(p *linkplan.Plan) string {
	if p == nil {
		return ""
	}
	return p.Backend
}

// register adds the fake check, then the fake backend's spec (whose
// verify: list names the check) and Go half, through the functions the
// built-in ones go through.
func register(t *testing.T) {
	t.Helper()
	err := flow.RegisterCheck(fakeCheck, func(_ context.Context, p *flow.Prepared, _ flow.CheckInput) (verify.Check, error) {
		return linkPlanNames{out: p.Layout.Out}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("testdata", "fake.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := configs.AddSpec("testdata/fake.yaml", data); err != nil {
		t.Fatal(err)
	}
	backends.Register(fakeBackend)
}

// TestAFakeBackendAndCheckNeedNothingElse: with only the fake spec and the
// two registrations, mlxbuild lists the backend (after the built-in ones)
// in its names and its messages, accepts it as a project file's key and its
// toolchain as a constraint, checks that constraint against the located
// version, plans and builds it into its own cache folder, and verify runs
// the fake check after the build.
func TestAFakeBackendAndCheckNeedNothingElse(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	register(t)

	want := []string{"cpu", "rocm", "cuda", "metal", "fake"}
	if !slices.Equal(configs.Names, want) || !slices.Equal(backends.Names(), want) {
		t.Fatalf("configs.Names %v, backends.Names() %v; want %v", configs.Names, backends.Names(), want)
	}
	if got, wantMsg := configs.UnknownBackend("vulkan").Error(), `unknown backend "vulkan": mlxbuild builds cpu, rocm, cuda, metal and fake; request one of those`; got != wantMsg {
		t.Errorf("unknown backend message:\n%s\nwant\n%s", got, wantMsg)
	}
	if got := configs.UnknownBackend("fakee").Error(); !strings.Contains(got, `did you mean "fake"? Request one of cpu, rocm, cuda, metal, fake`) {
		t.Errorf("a near miss of the fake backend: %s", got)
	}

	root := t.TempDir()
	dir := filepath.Join(root, "app")
	testutil.CopyTree(t, filepath.Join("..", "..", "examples", "minimlx", "mlx"), filepath.Join(dir, "third_party", "mlx"))
	testutil.WriteFile(t, filepath.Join(dir, "mlxbuild.yaml"), "source:\n  dir: third_party/mlx\n  pin: 81ba1c6a52d8b1e49e0e0a0de8c1a3c2e4c2b0a1\nbackends:\n  fake: {}\n")
	cacheDir := filepath.Join(root, "cache")
	vars := map[string]string{"MLXBUILD_CACHE": cacheDir, "NO_COLOR": "1", "FAKE_HOME": filepath.Join(root, "fakekit")}
	for _, v := range []string{"MLXBUILD_CONFIG", "MLXBUILD_BACKENDS", "CARGO_FEATURE_ROCM", "CARGO_FEATURE_CUDA", "CARGO_FEATURE_METAL", "CARGO_FEATURE_CPU", "FAKE_VERSION"} {
		vars[v] = ""
	}
	env := func(k string) string {
		if v, ok := vars[k]; ok {
			return v
		}
		return os.Getenv(k)
	}
	ctx := context.Background()
	opts := func(stdout *bytes.Buffer) flow.Options {
		return flow.Options{Dir: dir, Env: env, Stdout: stdout, Stderr: &bytes.Buffer{}}
	}

	var plan bytes.Buffer
	if err := flow.Plan(ctx, opts(&plan), "plan:fake", "fake"); err != nil {
		t.Fatalf("plan:fake: %v\n%s", err, plan.String())
	}
	for _, line := range []string{"backend:   fake (MLX on the CPU, as a backend mlxbuild does not ship)", "toolchain: fake 1.2.0 at " + vars["FAKE_HOME"], "cache:     " + filepath.Join(cacheDir, "fake")} {
		if !strings.Contains(plan.String(), line) {
			t.Errorf("plan:fake lacks %q:\n%s", line, plan.String())
		}
	}

	vars["FAKE_VERSION"] = "1.1"
	if err := flow.Plan(ctx, opts(&bytes.Buffer{}), "plan:fake", "fake"); err == nil || !strings.Contains(err.Error(), `fake 1.1.0 does not satisfy ">= 1.2"`) {
		t.Errorf("a fake toolchain older than the spec's constraint: %v", err)
	}
	vars["FAKE_VERSION"] = ""

	var out bytes.Buffer
	res, err := flow.Verify(ctx, opts(&out), "fake")
	if err != nil {
		t.Fatalf("verify:fake: %v\n%s", err, out.String())
	}
	var ran []string
	for _, r := range res.Results {
		ran = append(ran, r.Check+" "+r.Status.String())
	}
	if res.Failed || !slices.Equal(ran, []string{"config pass", "fake_check pass"}) {
		t.Errorf("verify:fake ran %v (failed %v), want config and fake_check passing:\n%s", ran, res.Failed, out.String())
	}
}
