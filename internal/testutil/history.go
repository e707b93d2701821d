package testutil

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// ExampleHistory is the bundled example's MLX stand-in in a git repository
// with three upstream commits on top of the pin: a renamed function
// (Rename), a changed signature (Signature) and a new primitive (Head). Its
// project file builds the CPU backend with the example's ROCm overlay (its
// core files are compiled, its HIP files are not), so a test needs no HIP.
// The overlay's version.cpp already has the first commit's comment change.
type ExampleHistory struct {
	MLX                          string // the repository
	Project, Overlay             string // mlxbuild.yaml and the overlay
	Pin, Rename, Signature, Head string
	Env                          func(string) string // an empty environment
}

// NewExampleHistory builds the history from examples (the repository's
// examples folder) under a temporary directory.
func NewExampleHistory(t testing.TB, examples string) *ExampleHistory {
	t.Helper()
	NeedTools(t, "git")
	root := t.TempDir()
	h := &ExampleHistory{MLX: filepath.Join(root, "mlx"), Env: func(string) string { return "" }}
	git := func(args ...string) string { return Git(t, h.MLX, args...) }
	commit := func(msg string, files map[string]string) string { return h.Commit(t, msg, files) }
	read := func(path string) string {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(data)
	}
	edit := func(s, old, new string) string {
		if !strings.Contains(s, old) {
			t.Fatalf("the example changed: %q is gone; update the synthetic history", old)
		}
		return strings.Replace(s, old, new, 1)
	}

	CopyTree(t, filepath.Join(examples, "minimlx", "mlx"), h.MLX)
	git("init", "--quiet", "-b", "main")
	h.Pin = commit("minimlx at the pin", nil)

	h.Overlay = filepath.Join(root, "proj", "patches")
	CopyTree(t, filepath.Join(examples, "minimlx", "patches-rocm"), h.Overlay)
	version := read(filepath.Join(h.MLX, "mlx/version.cpp"))
	versionNew := edit(version, "namespace mlx::core {\n", "namespace mlx::core {\n\n// version is the library's version string.\n")
	WriteFile(t, filepath.Join(h.Overlay, "mlx/version.cpp"), versionNew)
	up := filepath.Join(h.Overlay, "UPSTREAM")
	WriteFile(t, up, regexp.MustCompile(`(?m)^retargeted_to_mlx_pin: .*$`).ReplaceAllString(read(up), "retargeted_to_mlx_pin: "+h.Pin))

	ops := read(filepath.Join(h.MLX, "mlx/ops.h"))
	capi := read(filepath.Join(h.MLX, "mlx/c_api.cpp"))
	avail := read(filepath.Join(h.MLX, "mlx/backend/gpu/available.cpp"))

	// 1. gpu::device_count is renamed gpu::num_devices.
	ops = edit(ops, "int device_count();", "int num_devices();")
	capi = edit(capi, "gpu::device_count()", "gpu::num_devices()")
	avail = edit(avail, "int device_count() {", "int num_devices() {")
	h.Rename = commit("rename device_count to num_devices", map[string]string{
		"mlx/ops.h": ops, "mlx/c_api.cpp": capi, "mlx/backend/gpu/available.cpp": avail, "mlx/version.cpp": versionNew,
	})
	// 2. gpu::add takes a stream; is_available returns the number of usable devices.
	ops = edit(ops, "int add(const float* a, const float* b, float* out, std::size_t n);", "int add(const float* a, const float* b, float* out, std::size_t n, int stream);")
	ops = edit(ops, "bool is_available();", "int is_available();")
	capi = edit(capi, "gpu::add(a, b, out, n)", "gpu::add(a, b, out, n, 0)")
	avail = edit(avail, "int add(const float*, const float*, float*, std::size_t) {", "int add(const float*, const float*, float*, std::size_t, int) {")
	avail = edit(avail, "bool is_available() {\n  return false;", "int is_available() {\n  return 0;")
	h.Signature = commit("gpu::add takes a stream", map[string]string{
		"mlx/ops.h": ops, "mlx/c_api.cpp": capi, "mlx/backend/gpu/available.cpp": avail,
	})
	// 3. A new primitive every backend must provide.
	ops = edit(ops, "} // namespace gpu", "int multiply(const float* a, const float* b, float* out, std::size_t n);\n\n} // namespace gpu")
	capi = edit(capi, "} // extern \"C\"", "int mlx_gpu_multiply(const float* a, const float* b, float* out, size_t n) {\n  return gpu::multiply(a, b, out, n);\n}\n\n} // extern \"C\"")
	avail = edit(avail, "} // namespace mlx::core::gpu", "int multiply(const float*, const float*, float*, std::size_t) {\n  return -1;\n}\n\n} // namespace mlx::core::gpu")
	h.Head = commit("new primitive: multiply", map[string]string{
		"mlx/ops.h": ops, "mlx/c_api.cpp": capi, "mlx/backend/gpu/available.cpp": avail,
	})

	h.Project = filepath.Join(root, "proj", "mlxbuild.yaml")
	WriteFile(t, h.Project, "source:\n  git: ../mlx\n  pin: "+h.Pin+"\ncache: ../cache\nbackends:\n  cpu:\n    overlay: patches\n")
	return h
}

// Git runs git in dir with a fresh identity and no user or system
// configuration, and returns its output, trimmed.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	env := append(EnvWithout("HOME", "GIT_DIR", "GIT_WORK_TREE", "GIT_CONFIG_GLOBAL"), "HOME="+t.TempDir(),
		"GIT_AUTHOR_NAME=test", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=test", "GIT_COMMITTER_EMAIL=test@example.com", "GIT_CONFIG_NOSYSTEM=1")
	return strings.TrimSpace(RunOK(t, env, dir, "git", args...))
}

// Commit writes files (slash paths relative to the repository, content)
// into the history's MLX repository, commits everything, and returns the
// new commit's id.
func (h *ExampleHistory) Commit(t testing.TB, msg string, files map[string]string) string {
	t.Helper()
	for p, c := range files {
		WriteFile(t, filepath.Join(h.MLX, filepath.FromSlash(p)), c)
	}
	Git(t, h.MLX, "add", "-A")
	Git(t, h.MLX, "commit", "--quiet", "-m", msg)
	return Git(t, h.MLX, "rev-parse", "HEAD")
}
