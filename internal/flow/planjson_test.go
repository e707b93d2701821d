package flow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

var updateKeys = flag.Bool("update", false, "rewrite testdata/planjson.keys from plan -json's output")

// planDoc is plan -json's document as a release script reads it.
type planDoc struct {
	Format        int     `json:"format"`
	Backend       string  `json:"backend"`
	Pin           *string `json:"pin"`
	SourceDir     *string `json:"source_dir"`
	Architectures *struct {
		Targets []string `json:"targets"`
		Source  string   `json:"source"`
		CMake   []string `json:"cmake"`
	} `json:"architectures"`
	Toolchain *struct {
		Kind    string  `json:"kind"`
		Version *string `json:"version"`
		Root    string  `json:"root"`
		Lib     string  `json:"lib"`
		Env     string  `json:"env"`
	} `json:"toolchain"`
	Libraries []planLib `json:"libraries"`
	RunPath   struct {
		Mode string   `json:"mode"`
		Dirs []string `json:"dirs"`
	} `json:"run_path"`
	Fingerprint    *string `json:"fingerprint"`
	FingerprintWhy string  `json:"fingerprint_why"`
	Redo           struct {
		What        string   `json:"what"`
		Why         []string `json:"why"`
		Refused     *string  `json:"refused"`
		RefusedExit int      `json:"refused_exit"`
	} `json:"redo"`
	CriticalPath *struct {
		From    string `json:"from"`
		Ordered bool   `json:"ordered"`
		Chains  []struct {
			Seconds float64 `json:"seconds"`
			Edges   []struct {
				Output  string  `json:"output"`
				Seconds float64 `json:"seconds"`
			} `json:"edges"`
		} `json:"chains"`
	} `json:"critical_path"`
	Warnings     []string `json:"warnings"`
	Dependencies []struct {
		Name       string `json:"name"`
		Provider   string `json:"provider"`
		Detail     string `json:"detail"`
		Source     string `json:"source"`
		DeclaredAt string `json:"declared_at"`
		Asked      *bool  `json:"asked"`
	} `json:"dependencies"`
}

type planLib struct {
	Kind      string `json:"kind"`
	Name      string `json:"name"`
	Origin    string `json:"origin"`
	Toolchain string `json:"toolchain"`
}

// planJSON runs plan:<backend> -json and decodes its stdout, which must
// be one JSON document and nothing else; it returns the key paths too.
func planJSON(t *testing.T, dir, backend string) (planDoc, []string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if err := flow.PlanJSON(context.Background(), flow.Options{Dir: dir, Stdout: &stdout, Stderr: &stderr}, "plan:"+backend, backend); err != nil {
		t.Fatalf("plan:%s -json: %v\n%s", backend, err, stderr.String())
	}
	var doc planDoc
	dec := json.NewDecoder(bytes.NewReader(stdout.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		// An unknown field is fine for scripts, but this test names them all.
		t.Fatalf("plan:%s -json printed no plan document (%v):\n%s", backend, err, stdout.String())
	}
	if dec.More() {
		t.Fatalf("plan:%s -json printed more than one document:\n%s", backend, stdout.String())
	}
	var generic any
	if err := json.Unmarshal(stdout.Bytes(), &generic); err != nil {
		t.Fatal(err)
	}
	if doc.Format != 1 || doc.Backend != backend {
		t.Errorf("format %d, backend %q; want 1, %s", doc.Format, doc.Backend, backend)
	}
	return doc, keyPaths("", generic)
}

// keyPaths lists the key paths of a decoded JSON value, sorted: an
// object's keys as parent.key, an array's elements' keys as parent[].key.
func keyPaths(at string, v any) []string {
	var out []string
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			p := strings.TrimPrefix(at+"."+k, ".")
			out = append(out, p)
			out = append(out, keyPaths(p, e)...)
		}
	case []any:
		for _, e := range v {
			out = append(out, keyPaths(at+"[]", e)...)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// TestPlanJSONCPU: plan:cpu -json over the bundled example says the pin,
// the checkout, no toolchain or architectures (null, not absent), the
// spec's libraries, and, before a build, no fingerprint and why; after
// one, link.json's fingerprint and nothing to redo.
func TestPlanJSONCPU(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "c++")
	p := newProject(t, "")
	doc, keys := planJSON(t, p.Dir, "cpu")
	if doc.Pin == nil || *doc.Pin != examplePin || doc.SourceDir == nil || *doc.SourceDir != p.Mlx {
		t.Errorf("pin %v, source_dir %v; want %s, %s", doc.Pin, doc.SourceDir, examplePin, p.Mlx)
	}
	if doc.Toolchain != nil || doc.Architectures != nil {
		t.Errorf("cpu has a toolchain %+v or architectures %+v", doc.Toolchain, doc.Architectures)
	}
	if !slices.ContainsFunc(doc.Libraries, func(l planLib) bool { return l.Kind == "static" && l.Name == "mlx" }) {
		t.Errorf("libraries %+v lack static mlx", doc.Libraries)
	}
	if doc.Fingerprint != nil || !strings.Contains(doc.FingerprintWhy, "no build yet") || doc.Redo.What != "configure and build" || len(doc.Redo.Why) == 0 {
		t.Errorf("before a build: fingerprint %v (%s), redo %+v", doc.Fingerprint, doc.FingerprintWhy, doc.Redo)
	}
	for _, k := range []string{"architectures", "toolchain", "fingerprint", "redo.refused"} {
		if !slices.Contains(keys, k) {
			t.Errorf("key %s is absent, want it present (null)", k)
		}
	}

	var stderr bytes.Buffer
	sum, err := flow.Build(context.Background(), flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &stderr}, "cpu")
	if err != nil {
		t.Fatalf("build:cpu: %v\n%s", err, stderr.String())
	}
	lp, err := linkplan.Read(sum.Out)
	if err != nil {
		t.Fatal(err)
	}
	doc, _ = planJSON(t, p.Dir, "cpu")
	if doc.Fingerprint == nil || *doc.Fingerprint != lp.TreeFingerprint || doc.Redo.What != "nothing" || !strings.Contains(doc.FingerprintWhy, "up to date") {
		t.Errorf("after the build: fingerprint %v (%s), want link.json's %s; redo %+v", doc.Fingerprint, doc.FingerprintWhy, lp.TreeFingerprint, doc.Redo)
	}
}

// TestPlanJSONROCm: plan:rocm -json with Debian's ROCm standing in says
// the architectures and where they came from, the toolchain's kind,
// version and root, the HIP runtime among the libraries and the run path;
// its key set is testdata/planjson.keys, so removing or renaming a field
// fails here (and needs a new format number).
func TestPlanJSONROCm(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "hipcc")
	p := newProject(t, "link:\n  remove: [rocblas, hipblaslt, hipfft]\n")
	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030")
	doc, keys := planJSON(t, p.Dir, "rocm")
	if a := doc.Architectures; a == nil || strings.Join(a.Targets, ";") != "gfx1030" || !strings.Contains(a.Source, "MLX_ROCM_ARCHITECTURES") || len(a.CMake) == 0 {
		t.Errorf("architectures %+v, want gfx1030 from MLX_ROCM_ARCHITECTURES", a)
	}
	if tc := doc.Toolchain; tc == nil || tc.Kind != "rocm" || tc.Version == nil || *tc.Version == "" || tc.Root == "" {
		t.Errorf("toolchain %+v, want rocm with a version and a root", tc)
	}
	if !slices.ContainsFunc(doc.Libraries, func(l planLib) bool { return l.Kind == "dynamic" && l.Name == "amdhip64" }) || len(doc.RunPath.Dirs) == 0 || doc.RunPath.Mode == "" {
		t.Errorf("libraries %+v (want dynamic amdhip64), run path %+v", doc.Libraries, doc.RunPath)
	}
	// Each dependency says where it is declared and whether the tree asks
	// for it: MLX's json, declared by the built-in spec, is one the
	// example's tree never asks for.
	found := false
	for _, d := range doc.Dependencies {
		if d.Name == "json" {
			found = true
			if d.Asked == nil || *d.Asked || d.Provider != "" || !strings.HasPrefix(d.DeclaredAt, "built-in configs/rocm.yaml:") {
				t.Errorf("json: %+v, want unused, declared in the built-in spec", d)
			}
		}
	}
	if !found {
		t.Errorf("plan -json lists no json dependency: %+v", doc.Dependencies)
	}
	golden := filepath.Join("testdata", "planjson.keys")

	got := strings.Join(keys, "\n") + "\n"
	if *updateKeys {
		testutil.WriteFile(t, golden, got)
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (go test -run %s -update writes it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("plan -json's keys changed; a removed or renamed key breaks release scripts (raise flow.PlanFormat), an added one goes into docs/specs.md and %s (-update).\ngot:\n%swant:\n%s", golden, got, want)
	}
}
