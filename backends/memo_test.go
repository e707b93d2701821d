package backends

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/cache"
)

// countingScript is a /bin/sh stand-in that appends a byte to count on every
// run and prints out: how many times discovery really ran it.
func countingScript(count, out string) string {
	return "#!/bin/sh\nprintf x >> '" + count + "'\necho '" + out + "'\n"
}

func runs(t *testing.T, count string) int {
	t.Helper()
	b, err := os.ReadFile(count)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return len(b)
}

// replaceFile writes content to a new file and renames it over path, the way
// package managers install (a new inode).
func replaceFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	writeFile(t, path+".new", content, mode)
	if err := os.Rename(path+".new", path); err != nil {
		t.Fatal(err)
	}
}

// fakeDebianROCm is a ROCm root in Debian's shape: the version in
// hip_version.h, no bundled LLVM, and a hipconfig (a symlink to a script
// elsewhere, as on some installs) that names the directory of clang++-15.
func fakeDebianROCm(t *testing.T, count string) (root, script, clangDir string) {
	dir := t.TempDir()
	root = filepath.Join(dir, "rocm")
	writeFile(t, filepath.Join(root, "include", "hip", "hip_runtime.h"), "", 0o644)
	writeFile(t, filepath.Join(root, "include", "hip", "hip_version.h"),
		"#define HIP_VERSION_MAJOR 5\n#define HIP_VERSION_MINOR 2\n#define HIP_VERSION_PATCH 21153\n", 0o644)
	writeFile(t, filepath.Join(root, "lib", "libamdhip64.so.5"), "", 0o644)
	writeFile(t, filepath.Join(root, "amdgcn", "bitcode", "ocml.bc"), "", 0o644)
	clangDir = filepath.Join(dir, "llvm-15", "bin")
	writeFile(t, filepath.Join(clangDir, "clang++-15"), "", 0o755)
	script = filepath.Join(dir, "hip", "hipconfig")
	writeFile(t, script, countingScript(count, clangDir), 0o755)
	if err := os.MkdirAll(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(script, filepath.Join(root, "bin", "hipconfig")); err != nil {
		t.Fatal(err)
	}
	return root, script, clangDir
}

// A cached ROCm discovery runs no program while nothing it read changed, and
// runs again when any file it was derived from, or a variable it read,
// changes: the tool (at either end of its symlink), the wrapper's script
// beside it, the directory the tool's output named, an in-place edit that
// restores size and mtime.
func TestLocateROCmCachedRunsNoToolUntilAnInputChanges(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	root, script, clangDir := fakeDebianROCm(t, count)
	cacheDir := cacheRoot(t)
	vars := map[string]string{"ROCM_PATH": root}
	env := envMap(vars)

	locate := func(wantRuns int, wantCompiler string) *rocmToolchain {
		t.Helper()
		r, err := LocateROCmCached(env, cacheDir)
		if err != nil {
			t.Fatal(err)
		}
		if got := runs(t, count); got != wantRuns {
			t.Fatalf("hipconfig ran %d times, want %d", got, wantRuns)
		}
		if r.hipCompiler != wantCompiler || r.version.String() != "5.2.21153" || r.root != root || r.from != "ROCM_PATH" {
			t.Fatalf("got %+v", r)
		}
		return r
	}
	first := locate(1, filepath.Join(clangDir, "clang++-15"))
	if _, err := os.Stat(filepath.Join(cacheDir, "rocm.memo")); err != nil {
		t.Fatalf("no cache entry written: %v", err)
	}
	again := locate(1, first.hipCompiler)
	if again.deviceLibDir != first.deviceLibDir || again.LibDir != first.LibDir || again.versionFrom != first.versionFrom {
		t.Errorf("cached %+v differs from discovered %+v", again, first)
	}

	// The symlink's far end replaced: hipconfig now names another clang.
	clang16 := filepath.Join(filepath.Dir(clangDir), "..", "llvm-16", "bin")
	writeFile(t, filepath.Join(clang16, "clang++-16"), "", 0o755)
	replaceFile(t, script, countingScript(count, filepath.Clean(clang16)), 0o755)
	locate(2, filepath.Join(filepath.Clean(clang16), "clang++-16"))
	locate(2, filepath.Join(filepath.Clean(clang16), "clang++-16"))

	// The Perl script the wrapper execs appears beside it.
	writeFile(t, script+".pl", "# new\n", 0o755)
	locate(3, filepath.Join(filepath.Clean(clang16), "clang++-16"))

	// An entry added to the directory hipconfig named.
	writeFile(t, filepath.Join(clang16, "clang-format-16"), "", 0o755)
	locate(4, filepath.Join(filepath.Clean(clang16), "clang++-16"))

	// An in-place edit of hip_version.h that keeps size and mtime.
	hv := filepath.Join(root, "include", "hip", "hip_version.h")
	st, err := os.Stat(hv)
	if err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(hv)
	time.Sleep(10 * time.Millisecond) // a later ctime, even on coarse clocks
	if err := os.WriteFile(hv, []byte(strings.Replace(string(data), "PATCH 21153", "PATCH 21154", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(hv, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	r, err := LocateROCmCached(env, cacheDir)
	if err != nil || r.version.String() != "5.2.21154" {
		t.Fatalf("after an edit that kept size and mtime: %v, %v; want the new version 5.2.21154", r, err)
	}

	// A variable discovery reads.
	clang17 := filepath.Join(t.TempDir(), "clang17")
	writeFile(t, filepath.Join(clang17, "clang++"), "", 0o755)
	vars["HIP_CLANG_PATH"] = clang17
	r, err = LocateROCmCached(env, cacheDir)
	if err != nil || r.hipCompiler != filepath.Join(clang17, "clang++") {
		t.Fatalf("after setting HIP_CLANG_PATH: %v, %v", r, err)
	}
}

// Errors are not cached, and a missing root means the next run looks again.
func TestLocateROCmCachedKeepsNoErrors(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	root, _, _ := fakeDebianROCm(t, count)
	cacheDir := cacheRoot(t)
	lib := filepath.Join(root, "include", "hip", "hip_runtime.h")
	if err := os.Rename(lib, lib+".away"); err != nil {
		t.Fatal(err)
	}
	if _, err := LocateROCmCached(envMap(map[string]string{"ROCM_PATH": root}), cacheDir); err == nil || !strings.Contains(err.Error(), "ROCM_PATH") {
		t.Fatalf("want an error naming ROCM_PATH, got %v", err)
	}
	if _, err := os.Stat(filepath.Join(cacheDir, "rocm.memo")); !os.IsNotExist(err) {
		t.Fatalf("an error was cached: %v", err)
	}
	if err := os.Rename(lib+".away", lib); err != nil {
		t.Fatal(err)
	}
	if _, err := LocateROCmCached(envMap(map[string]string{"ROCM_PATH": root}), cacheDir); err != nil {
		t.Fatal(err)
	}
}

// A cached tool version runs no `--version` until the executable changes or
// a same-named tool appears earlier on PATH.
func TestToolCachedRunsNoToolUntilPathOrToolChanges(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	early, late := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(late, "cmake"), countingScript(count, "cmake version 3.25.1"), 0o755)
	t.Setenv("PATH", early+string(os.PathListSeparator)+late)
	cacheDir := cacheRoot(t)

	find := cmakeFinder(t, cacheDir, count)
	find(1, filepath.Join(late, "cmake"), "3.25.1")
	find(1, filepath.Join(late, "cmake"), "3.25.1")
	replaceFile(t, filepath.Join(late, "cmake"), countingScript(count, "cmake version 3.28.3"), 0o755)
	find(2, filepath.Join(late, "cmake"), "3.28.3")
	writeFile(t, filepath.Join(early, "cmake"), countingScript(count, "cmake version 3.30.0"), 0o755)
	find(3, filepath.Join(early, "cmake"), "3.30.0")
	find(3, filepath.Join(early, "cmake"), "3.30.0")
}

// TestToolCachedReadsAnOlderEntryAsAMiss: an entry an older mlxbuild
// wrote (memo 3, before internal/memo) is a miss: the tool runs once and
// the entry is rewritten in today's form, which the next run uses.
func TestToolCachedReadsAnOlderEntryAsAMiss(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "cmake"), countingScript(count, "cmake version 3.25.1"), 0o755)
	t.Setenv("PATH", dir)
	cacheDir := cacheRoot(t)
	find := cmakeFinder(t, cacheDir, count)
	find(1, filepath.Join(dir, "cmake"), "3.25.1")
	entry := filepath.Join(cacheDir, "tool-cmake.memo")
	writeFile(t, entry, "mlxbuild memo 3\nset \"path\" \"/usr/bin/cmake\"\nset \"version\" \"3.1.0\"\n", 0o644)
	find(2, filepath.Join(dir, "cmake"), "3.25.1")
	find(2, filepath.Join(dir, "cmake"), "3.25.1")
	if data, err := os.ReadFile(entry); err != nil || !strings.HasPrefix(string(data), "mlxbuild memo 4 ") {
		t.Errorf("the older entry was not rewritten: %q, %v", data, err)
	}
}

// Without an existing cache root the memo writes nothing (plan and doctor
// must not create one) and discovery still answers.
func TestMemoCreatesNoCacheRoot(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	root, _, _ := fakeDebianROCm(t, count)
	missingRoot := filepath.Join(t.TempDir(), "no-cache-yet")
	for i := 1; i <= 2; i++ {
		if _, err := LocateROCmCached(envMap(map[string]string{"ROCM_PATH": root}), filepath.Join(missingRoot, "discovery")); err != nil {
			t.Fatal(err)
		}
		if got := runs(t, count); got != i {
			t.Fatalf("run %d: hipconfig ran %d times", i, got)
		}
	}
	if _, err := os.Stat(missingRoot); !os.IsNotExist(err) {
		t.Fatalf("the memo created %s: %v", missingRoot, err)
	}
}

// cacheRoot is a cache root as mlxbuild makes it (with its CACHEDIR.TAG) and
// returns its discovery directory.
func cacheRoot(t *testing.T) string {
	root := t.TempDir()
	if err := cache.EnsureRoot(root); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "discovery")
}

// A discovery folder that is a link to a user's folder (planted in the
// cache) gets no entry: the memo writes only where cache.CheckFolder says.
func TestMemoWritesNotThroughALink(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	root, _, _ := fakeDebianROCm(t, count)
	discovery := cacheRoot(t)
	user := t.TempDir()
	if err := os.Symlink(user, discovery); err != nil {
		t.Fatal(err)
	}
	if _, err := LocateROCmCached(envMap(map[string]string{"ROCM_PATH": root}), discovery); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(user); len(entries) != 0 {
		t.Fatalf("the memo wrote through the link into the user's folder: %v", entries)
	}
}

// A directory that is not mlxbuild's cache (no CACHEDIR.TAG) gets no entry.
func TestMemoWritesOnlyIntoATaggedCacheRoot(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	root, _, _ := fakeDebianROCm(t, count)
	plain := t.TempDir()
	if _, err := LocateROCmCached(envMap(map[string]string{"ROCM_PATH": root}), filepath.Join(plain, "discovery")); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(plain); len(entries) != 0 {
		t.Fatalf("the memo wrote into an untagged directory: %v", entries)
	}
}

// An absent tool inside an unchanged PATH directory is not looked at again,
// so that rule must hold wherever a tool can appear: in a directory on PATH
// (its mtime changes), and behind a PATH entry that is a symlink to a
// directory (the link's own identity does not change; its target's does).
func TestToolCachedSeesToolsAddedBehindLinks(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	base := t.TempDir()
	real, link, plain, late := filepath.Join(base, "real"), filepath.Join(base, "link"), filepath.Join(base, "plain"), filepath.Join(base, "late")
	for _, d := range []string{real, plain, late} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(late, "cmake"), countingScript(count, "cmake version 3.25.1"), 0o755)
	t.Setenv("PATH", strings.Join([]string{plain, link, late}, string(os.PathListSeparator)))
	find := cmakeFinder(t, cacheRoot(t), count)
	find(1, filepath.Join(late, "cmake"), "3.25.1")
	find(1, filepath.Join(late, "cmake"), "3.25.1")
	writeFile(t, filepath.Join(real, "cmake"), countingScript(count, "cmake version 3.28.3"), 0o755)
	find(2, filepath.Join(link, "cmake"), "3.28.3")
	find(2, filepath.Join(link, "cmake"), "3.28.3")
	writeFile(t, filepath.Join(plain, "cmake"), countingScript(count, "cmake version 3.30.0"), 0o755)
	find(3, filepath.Join(plain, "cmake"), "3.30.0")
}

// cmakeFinder asks ToolCached for cmake with the memo in cacheDir and
// checks how many times the counting script ran in all, and what was found.
func cmakeFinder(t *testing.T, cacheDir, count string) func(wantRuns int, wantPath, wantVersion string) {
	return func(wantRuns int, wantPath, wantVersion string) {
		t.Helper()
		p, v, err := ToolCached("cmake", cacheDir)
		if err != nil {
			t.Fatal(err)
		}
		if got := runs(t, count); got != wantRuns {
			t.Fatalf("cmake --version ran %d times, want %d", got, wantRuns)
		}
		if p != wantPath || v.String() != wantVersion {
			t.Fatalf("got %s %s, want %s %s", p, v, wantPath, wantVersion)
		}
	}
}

// TestLocateCUDACachedRunsNvccOnceUntilTheToolkitChanges: a no-op build of
// real MLX for CUDA ran `nvcc --version` every time (the largest part of its
// 244 ms against Ninja's 17 ms on the H200); the memo answers until nvcc is
// replaced (an upgrade) or CUDA_HOME changes.
func TestLocateCUDACachedRunsNvccOnceUntilTheToolkitChanges(t *testing.T) {
	count := filepath.Join(t.TempDir(), "count")
	root := t.TempDir()
	nvcc := filepath.Join(root, "bin", "nvcc")
	writeFile(t, nvcc, countingScript(count, "Cuda compilation tools, release 12.4, V12.4.131"), 0o755)
	writeFile(t, filepath.Join(root, "lib64", "libcudart.so.12"), "", 0o644)
	cacheDir := cacheRoot(t)
	env := envMap(map[string]string{"CUDA_HOME": root, "PATH": "/nonexistent"})
	locate := func(wantRuns int, wantVersion string) {
		t.Helper()
		c, err := locateCUDACached(env, cacheDir)
		if err != nil {
			t.Fatal(err)
		}
		if got := runs(t, count); got != wantRuns || c.version.String() != wantVersion || c.NVCC != nvcc || c.LibDir != filepath.Join(root, "lib64") || c.from != "CUDA_HOME" {
			t.Fatalf("nvcc ran %d times (want %d), found %+v (want version %s)", got, wantRuns, c, wantVersion)
		}
	}
	locate(1, "12.4.131")
	locate(1, "12.4.131")
	replaceFile(t, nvcc, countingScript(count, "Cuda compilation tools, release 13.0, V13.0.88"), 0o755)
	locate(2, "13.0.88")
	locate(2, "13.0.88")
	other := t.TempDir()
	writeFile(t, filepath.Join(other, "bin", "nvcc"), countingScript(count, "Cuda compilation tools, release 12.8, V12.8.93"), 0o755)
	writeFile(t, filepath.Join(other, "lib64", "libcudart.so.12"), "", 0o644)
	env = envMap(map[string]string{"CUDA_HOME": other, "PATH": "/nonexistent"})
	nvcc, root = filepath.Join(other, "bin", "nvcc"), other
	locate(3, "12.8.93")
}
