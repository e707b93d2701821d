package forksync

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// exampleHistory is the bundled example's MLX stand-in in a git repository
// with three upstream commits on top of the pin: a renamed function, a
// changed signature and a new primitive. The project builds the CPU backend
// with the ROCm overlay (its core file is compiled; its HIP files are not),
// so the test needs no HIP.
type exampleHistory struct {
	mlx                 *gitRepo
	project, overlay    string
	pin, rename, signat string
	head                string
	env                 func(string) string
}

func newExampleHistory(t *testing.T) *exampleHistory {
	t.Helper()
	root := t.TempDir()
	h := &exampleHistory{env: func(string) string { return "" }}
	h.mlx = newRepo(t, filepath.Join(root, "mlx"))
	copyTree(t, "../../examples/minimlx/mlx", h.mlx.dir)
	h.pin = h.mlx.commit("minimlx at the pin", nil)

	// The overlay: the example's ROCm overlay, plus a copy of version.cpp
	// that already has the upstream comment change of the first commit.
	h.overlay = filepath.Join(root, "proj", "patches")
	copyTree(t, "../../examples/minimlx/patches-rocm", h.overlay)
	version := readFile(t, filepath.Join(h.mlx.dir, "mlx/version.cpp"))
	versionNew := edit(t, version, "namespace mlx::core {\n", "namespace mlx::core {\n\n// version is the library's version string.\n")
	testutil.WriteFile(t, filepath.Join(h.overlay, "mlx/version.cpp"), versionNew)
	up := filepath.Join(h.overlay, "UPSTREAM")
	testutil.WriteFile(t, up, string(setUpstream([]byte(readFile(t, up)), [][2]string{{"retargeted_to_mlx_pin", h.pin}})))

	ops := readFile(t, filepath.Join(h.mlx.dir, "mlx/ops.h"))
	capi := readFile(t, filepath.Join(h.mlx.dir, "mlx/c_api.cpp"))
	avail := readFile(t, filepath.Join(h.mlx.dir, "mlx/backend/gpu/available.cpp"))

	// 1. gpu::device_count is renamed gpu::num_devices.
	ops = edit(t, ops, "int device_count();", "int num_devices();")
	capi = edit(t, capi, "gpu::device_count()", "gpu::num_devices()")
	avail = edit(t, avail, "int device_count() {", "int num_devices() {")
	h.rename = h.mlx.commit("rename device_count to num_devices", map[string]string{
		"mlx/ops.h": ops, "mlx/c_api.cpp": capi, "mlx/backend/gpu/available.cpp": avail, "mlx/version.cpp": versionNew,
	})
	// 2. gpu::add takes a stream; is_available returns the number of usable devices.
	ops = edit(t, ops, "int add(const float* a, const float* b, float* out, std::size_t n);", "int add(const float* a, const float* b, float* out, std::size_t n, int stream);")
	ops = edit(t, ops, "bool is_available();", "int is_available();")
	capi = edit(t, capi, "gpu::add(a, b, out, n)", "gpu::add(a, b, out, n, 0)")
	avail = edit(t, avail, "int add(const float*, const float*, float*, std::size_t) {", "int add(const float*, const float*, float*, std::size_t, int) {")
	avail = edit(t, avail, "bool is_available() {\n  return false;", "int is_available() {\n  return 0;")
	h.signat = h.mlx.commit("gpu::add takes a stream", map[string]string{
		"mlx/ops.h": ops, "mlx/c_api.cpp": capi, "mlx/backend/gpu/available.cpp": avail,
	})
	// 3. A new primitive every backend must provide.
	ops = edit(t, ops, "} // namespace gpu", "int multiply(const float* a, const float* b, float* out, std::size_t n);\n\n} // namespace gpu")
	capi = edit(t, capi, "} // extern \"C\"", "int mlx_gpu_multiply(const float* a, const float* b, float* out, size_t n) {\n  return gpu::multiply(a, b, out, n);\n}\n\n} // extern \"C\"")
	avail = edit(t, avail, "} // namespace mlx::core::gpu", "int multiply(const float*, const float*, float*, std::size_t) {\n  return -1;\n}\n\n} // namespace mlx::core::gpu")
	h.head = h.mlx.commit("new primitive: multiply", map[string]string{
		"mlx/ops.h": ops, "mlx/c_api.cpp": capi, "mlx/backend/gpu/available.cpp": avail,
	})

	h.project = filepath.Join(root, "proj", "mlxbuild.yaml")
	testutil.WriteFile(t, h.project, "source:\n  git: ../mlx\n  pin: "+h.pin+"\ncache: ../cache\nbackends:\n  cpu:\n    overlay: patches\n")
	return h
}

func edit(t *testing.T, s, old, new string) string {
	t.Helper()
	if !strings.Contains(s, old) {
		t.Fatalf("the example changed: %q is gone; update the synthetic history", old)
	}
	return strings.Replace(s, old, new, 1)
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestDriftListsTheCoreFilesWhoseUpstreamMoved(t *testing.T) {
	h := newExampleHistory(t)
	cfg, err := configs.LoadConfig(filepath.Dir(h.project), h.env)
	if err != nil {
		t.Fatal(err)
	}
	o, notes, err := DriftOptionsFor(cfg, "cpu", "") // the candidate is upstream's HEAD
	if err != nil || len(notes) != 0 {
		t.Fatalf("DriftOptionsFor: %v %v", notes, err)
	}
	rep, err := Drift(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Pin != h.pin || rep.Candidate != h.head {
		t.Errorf("range %s..%s, want %s..%s", rep.Pin, rep.Candidate, h.pin, h.head)
	}
	if got := strings.Join(rep.Moved(), ","); got != "mlx/backend/gpu/available.cpp,mlx/version.cpp" {
		t.Errorf("moved core files: %s", got)
	}
	files := map[string]FileDrift{}
	for _, f := range rep.Files {
		files[f.Path] = f
	}
	if len(files) != 2 {
		t.Errorf("core files: %+v (the backend directory is no core file)", rep.Files)
	}
	v := files["mlx/version.cpp"]
	if len(v.Missing) != 0 || v.Contained != 1 {
		t.Errorf("version.cpp already has upstream's change: %+v", v)
	}
	a := files["mlx/backend/gpu/available.cpp"]
	var missing []string
	for _, hk := range a.Missing {
		missing = append(missing, hk.Lines...)
	}
	text := strings.Join(missing, "\n")
	for _, w := range []string{"+int num_devices() {", "-int device_count() {", "+int add(const float*, const float*, float*, std::size_t, int) {", "+int is_available() {", "+int multiply(const float*, const float*, float*, std::size_t) {"} {
		if !strings.Contains(text, w) {
			t.Errorf("drift does not show the upstream line %q; missing hunks:\n%s", w, text)
		}
	}
	var out strings.Builder
	rep.Render(&out)
	t.Log(out.String())
	for _, w := range []string{"mlx/backend/gpu/available.cpp", "+int num_devices() {", "mlx/version.cpp: upstream changed it; the overlay has all 1 hunk"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("the rendered report lacks %q:\n%s", w, out.String())
		}
	}

	// Up to the rename only, the signature change is not reported.
	o.Candidate = h.rename
	rep, err = Drift(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	rep.Render(&out)
	if strings.Contains(out.String(), "int stream") || !strings.Contains(out.String(), "num_devices") {
		t.Errorf("drift to the rename:\n%s", out.String())
	}
}

func TestAPIDriftListsEachBreak(t *testing.T) {
	for _, tool := range []string{"cmake", "ninja", "nm", "c++"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "" {
				t.Skipf("%s is not installed", tool)
			}
			t.Fatalf("%s is not installed", tool)
		}
	}
	h := newExampleHistory(t)
	rep, err := APIDrift(context.Background(), APIDriftOptions{
		Job: flow.Options{Dir: filepath.Dir(h.project), Env: h.env}, Backend: "cpu", Candidate: "main"})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	rep.Render(&out)
	report := out.String()
	t.Log(report)
	if rep.Candidate != h.head || rep.Pin != h.pin {
		t.Errorf("built %s against %s, want %s against %s", rep.Candidate, rep.Pin, h.head, h.pin)
	}
	// The changed signature: the overlay's is_available no longer matches.
	if len(rep.CompileErrors) != 1 || rep.CompileErrors[0].File != "mlx/backend/gpu/available.cpp" || !rep.CompileErrors[0].InOverlay ||
		!strings.Contains(rep.CompileErrors[0].Errors[0].Message, "is_available") {
		t.Errorf("compile errors: %+v\n%s", rep.CompileErrors, report)
	}
	want := map[string]string{ // symbol -> the source that calls it
		"mlx::core::gpu::num_devices()":                                               "mlx/c_api.cpp",
		"mlx::core::gpu::add(float const*, float const*, float*, unsigned long, int)": "mlx/c_api.cpp",
		"mlx::core::gpu::multiply(float const*, float const*, float*, unsigned long)": "mlx/c_api.cpp",
	}
	got := map[string]Symbol{}
	for _, s := range rep.Undefined {
		got[s.Name] = s
	}
	for name, from := range want {
		s, ok := got[name]
		if !ok {
			t.Errorf("undefined symbol %s is not reported:\n%s", name, report)
			continue
		}
		if len(s.From) != 1 || !strings.HasSuffix(s.From[0], from) {
			t.Errorf("%s is referenced from %v, want %s", name, s.From, from)
		}
		if !strings.Contains(report, name) {
			t.Errorf("the rendered report lacks %s", name)
		}
	}
	if len(rep.Undefined) != len(want) {
		t.Errorf("undefined symbols: %+v, want exactly %d (libstdc++'s and the pin's own are not breaks)", rep.Undefined, len(want))
	}
	// At the pin itself nothing breaks: the CPU build of the ROCm overlay
	// leaves the rocm:: kernels unresolved, but they were already.
	rep, err = APIDrift(context.Background(), APIDriftOptions{
		Job: flow.Options{Dir: filepath.Dir(h.project), Env: h.env}, Backend: "cpu", Candidate: h.pin})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Breaks() != 0 || len(rep.Unresolved) == 0 || !strings.Contains(rep.Unresolved[0].Name, "rocm::") {
		t.Errorf("at the pin: breaks %d, unresolved %+v", rep.Breaks(), rep.Unresolved)
	}
}
