package flow_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	mlxcache "github.com/mlxbuild/mlxbuild/cache"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
	"github.com/mlxbuild/mlxbuild/internal/verify"
)

// TestVerifyBundledExample runs verify:cpu and verify:rocm over this
// repository's own mlxbuild.yaml (the bundled example, as CI and a fresh
// clone see it) into a temporary cache: every check the spec lists must
// pass, except a declared scope the project leaves out, which must say so.
// The JUnit report a CI system reads must agree.
func TestVerifyBundledExample(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "hipcc", "c++", "readelf")
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MLXBUILD_CACHE", t.TempDir())
	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030")
	for _, backend := range []string{"cpu", "rocm"} {
		t.Run(backend, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "verify.xml")
			t.Setenv(verify.ReportEnv, "junit:"+report)
			var stdout, stderr bytes.Buffer
			r, err := flow.Verify(context.Background(), flow.Options{Dir: repo, Stdout: &stdout, Stderr: &stderr}, backend)
			if err != nil {
				t.Fatalf("verify:%s: %v\n%s%s", backend, err, stderr.String(), stdout.String())
			}
			t.Logf("verify:%s:\n%s", backend, stdout.String())
			if r.Failed {
				t.Fatalf("verify:%s failed on the bundled example:\n%s", backend, stdout.String())
			}
			passed := 0
			for _, res := range r.Results {
				switch res.Status {
				case verify.Pass:
					passed++
				case verify.Skip:
					// Only a scope the project file does not declare may skip.
					if !strings.Contains(res.Reason, "declared") {
						t.Errorf("%s skipped for another reason: %s", res.Check, res.Reason)
					}
				}
			}
			want := map[string]int{"cpu": 4, "rocm": 9}[backend]
			if passed < want {
				t.Errorf("verify:%s: %d checks passed, want at least %d:\n%s", backend, passed, want, stdout.String())
			}
			data, err := os.ReadFile(report)
			if err != nil {
				t.Fatalf("no JUnit report at %s: %v", report, err)
			}
			var suites struct {
				Suites []struct {
					Failures int `xml:"failures,attr"`
					Tests    int `xml:"tests,attr"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal(data, &suites); err != nil || len(suites.Suites) != 1 {
				t.Fatalf("JUnit report does not parse as one suite: %v\n%s", err, data)
			}
			if s := suites.Suites[0]; s.Failures != 0 || s.Tests != len(r.Results) {
				t.Errorf("JUnit report: %d tests, %d failures; want %d tests, 0 failures\n%s", s.Tests, s.Failures, len(r.Results), data)
			}
		})
	}
}

// TestVerifyWhenTheBuildCannotRun is the real fork on Debian's ROCm 5.2 in
// small: the toolchain the build needs is not there, yet verify:rocm runs
// every check that reads only sources, writes all its reports, says which
// checks were not run and why, and fails.
func TestVerifyWhenTheBuildCannotRun(t *testing.T) {
	testutil.NeedTools(t, "git")
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MLXBUILD_CACHE", t.TempDir())
	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030")
	t.Setenv("ROCM_PATH", t.TempDir()) // an empty prefix: no hipcc, no libraries
	dir := t.TempDir()
	xmlReport, jsonReport := filepath.Join(dir, "verify.xml"), filepath.Join(dir, "verify.json")
	t.Setenv(verify.ReportEnv, "junit:"+xmlReport+",json:"+jsonReport)
	var stdout, stderr bytes.Buffer
	r, err := flow.Verify(context.Background(), flow.Options{Dir: repo, Stdout: &stdout, Stderr: &stderr}, "rocm")
	if err != nil {
		t.Fatalf("verify:rocm returned an error instead of a report: %v\n%s", err, stdout.String())
	}
	t.Logf("verify:rocm:\n%s", stdout.String())
	if !r.Failed {
		t.Error("verify passed although the build did not run")
	}
	want := map[string]verify.Status{
		"config": verify.Pass, "build": verify.Fail,
		"records": verify.Pass, "kernel_keys": verify.Pass, "wave32": verify.Pass, "hygiene": verify.Pass,
		"integrity": verify.NotRun, "isolation": verify.NotRun, "rules": verify.NotRun, "link": verify.NotRun,
	}
	got := map[string]verify.Status{}
	for _, res := range r.Results {
		got[res.Check] = res.Status
		if res.Status == verify.NotRun && !strings.Contains(res.Reason, "build") {
			t.Errorf("%s not run without saying why: %q", res.Check, res.Reason)
		}
		if res.Check == "build" && (len(res.Findings) == 0 || !strings.Contains(res.Findings[0].Message, "ROCM_PATH")) {
			t.Errorf("the build check does not carry the build's error: %+v", res)
		}
	}
	for name, st := range want {
		if got[name] != st {
			t.Errorf("%s: %v, want %v", name, got[name], st)
		}
	}
	for _, p := range []string{xmlReport, jsonReport} {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatalf("report %s not written: %v", p, err)
		}
		if !strings.Contains(string(data), "kernel_keys") || !strings.Contains(string(data), "not run") && !strings.Contains(string(data), "not-run") {
			t.Errorf("%s lacks the static checks or the not-run ones:\n%s", p, data)
		}
	}
}

// TestVerifyEngineScopes: checks take any folder of the repository as
// scope, here an engine's own sources (the verify package's engine
// stand-in), declared in the project file; a scope that is not one of the
// three is a usage error naming the file, line and column.
func TestVerifyEngineScopes(t *testing.T) {
	p := newProject(t, "")
	testutil.CopyTree(t, filepath.Join("..", "verify", "testdata", "engine", "clean"), p.Dir)
	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030")
	t.Setenv("ROCM_PATH", t.TempDir()) // the build stops early; these checks read sources only
	// The cache inside the repository holds trees mlxbuild made, not the
	// project's sources: a defect there is no finding.
	cache := filepath.Join(p.Dir, "target", "mlxbuild")
	t.Setenv("MLXBUILD_CACHE", cache)
	if err := mlxcache.EnsureRoot(cache); err != nil { // mlxbuild's own, as a build leaves it
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(cache, "rocm", "tree", "gate.rs"), "fn f() -> bool { metal_is_available() || cuda_is_available() }\n")
	section := `    verify:
      kernel_keys:
        scope: repo
        root: src/lib
        launches: initializers
        include: ["**/*.cpp"]
        files: [mlx-cpp/turbo/fused_norm.cpp, mlxcel-core/cpp/mlx_cxx_kernels.cpp]
        count: 2
      wave32: { scope: repo, root: src/lib/mlx-cpp/turbo }
      kernel_ports: { helpers: ["**/kernel_port.cpp"], exclude: ["src/lib/mlx-cpp/patches-*/**", "third_party/**", "patches-rocm/**"] }
      license_headers: { vendored: ["src/lib/mlx-cpp/patches-*/**"] }
      cross_refs: { vendored: ["src/lib/mlx-cpp/patches-*/**", "third_party/**", "patches-rocm/**"], repo: lablup/mlxcel }
`
	yamlFile := filepath.Join(p.Dir, "mlxbuild.yaml")
	base, err := os.ReadFile(yamlFile)
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, yamlFile, string(base)+section)
	var stdout bytes.Buffer
	r, err := flow.Verify(context.Background(), flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: &stdout}, "rocm")
	if err != nil {
		t.Fatalf("verify:rocm: %v\n%s", err, stdout.String())
	}
	t.Logf("verify:rocm:\n%s", stdout.String())
	for _, res := range r.Results {
		switch res.Check {
		case "kernel_keys", "wave32", "kernel_ports", "license_headers", "cross_refs":
			if res.Status != verify.Pass {
				t.Errorf("%s over the engine's sources: %v (%s) %+v", res.Check, res.Status, res.Reason, res.Findings)
			}
		}
	}
	if !strings.Contains(stdout.String(), "kernel_keys: 2 template_args initializers in 2 files") {
		t.Errorf("kernel_keys did not read the engine's scope:\n%s", stdout.String())
	}

	testutil.WriteFile(t, yamlFile, string(base)+"    verify:\n      wave32: { scope: engine }\n")
	_, err = flow.Verify(context.Background(), flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: &stdout}, "rocm")
	if err == nil || fail.KindOf(err) != fail.Config || !strings.Contains(err.Error(), "mlxbuild.yaml:8:") || !strings.Contains(err.Error(), "overlay, tree or repo") {
		t.Errorf("scope: engine gave %v, want a usage error at mlxbuild.yaml:8 naming the three scopes", err)
	}
}

// TestVerifyKernelKeysByDefault: with no kernel_keys entry in the project
// file, the check still reads the backend's overlay (the real fork's JIT-key
// bug is found without declaring anything), as the reference's verify runs
// its dtype-key check on every verify.
func TestVerifyKernelKeysByDefault(t *testing.T) {
	p := newProject(t, "")
	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030")
	t.Setenv("ROCM_PATH", t.TempDir()) // the build stops early; kernel_keys reads sources only
	src, err := os.ReadFile(filepath.Join("..", "verify", "testdata", "kernelkeys", "modulecache", "mlx", "backend", "rocm", "custom_kernel.cpp"))
	if err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(p.Rocm, "mlx", "backend", "rocm", "custom_kernel.cpp"), string(src))
	var stdout bytes.Buffer
	r, err := flow.Verify(context.Background(), flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: &stdout}, "rocm")
	if err != nil {
		t.Fatalf("verify:rocm: %v\n%s", err, stdout.String())
	}
	for _, res := range r.Results {
		if res.Check != "kernel_keys" {
			continue
		}
		if res.Status != verify.Fail || len(res.Findings) != 1 || !strings.Contains(res.Findings[0].Message, "caches the compiled module by name_") {
			t.Fatalf("kernel_keys undeclared: %v (%s) %+v\n%s", res.Status, res.Reason, res.Findings, stdout.String())
		}
		return
	}
	t.Fatalf("no kernel_keys result:\n%s", stdout.String())
}
