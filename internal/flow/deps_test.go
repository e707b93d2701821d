package flow_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// depsProject is a stand-in CMake project that fetches what MLX fetches, the
// way MLX does: a URL archive with URL_HASH, a GIT_REPOSITORY at a tag, a
// dependency the system provides through find_package when a define says
// so, and one undeclared dependency behind an option. Every URL points at a
// closed loopback port, so any download CMake tried would fail.
type depsProject struct {
	Dir, Cache, Mirror, Prefix string
	TinySHA, GitCommit         string
}

func newDepsProject(t *testing.T) *depsProject {
	t.Helper()
	testutil.NeedTools(t, "cmake", "ninja", "c++", "git")
	root := t.TempDir()
	p := &depsProject{Dir: filepath.Join(root, "app"), Cache: filepath.Join(root, "cache"), Mirror: filepath.Join(root, "mirror"), Prefix: filepath.Join(root, "prefix")}

	// The URL dependency: a release-style archive with one top directory.
	archive := tarGz(t, map[string]string{
		"tiny-1.0/CMakeLists.txt": "cmake_minimum_required(VERSION 3.20)\nproject(tiny LANGUAGES CXX)\nadd_library(tiny INTERFACE)\ntarget_include_directories(tiny INTERFACE ${CMAKE_CURRENT_SOURCE_DIR}/include)\n",
		"tiny-1.0/include/tiny.h": "#define TINY 40\n",
	})
	sum := sha256.Sum256(archive)
	p.TinySHA = hex.EncodeToString(sum[:])
	testutil.WriteFile(t, filepath.Join(p.Mirror, "tiny-1.0.tar.gz"), string(archive))

	// The git dependency: a local repository with a tag, in the mirror.
	repo := filepath.Join(p.Mirror, "gitlib.git")
	env := append(testutil.EnvWithout("GIT_DIR", "GIT_WORK_TREE"), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	testutil.WriteFile(t, filepath.Join(repo, "CMakeLists.txt"), "add_library(gitlib INTERFACE)\ntarget_include_directories(gitlib INTERFACE ${CMAKE_CURRENT_SOURCE_DIR})\n")
	testutil.WriteFile(t, filepath.Join(repo, "gitlib.h"), "#define GITLIB 2\n")
	testutil.RunOK(t, env, repo, "git", "init", "-q", "-b", "main")
	testutil.RunOK(t, env, repo, "git", "add", "-A")
	testutil.RunOK(t, env, repo, "git", "commit", "-q", "-m", "gitlib")
	testutil.RunOK(t, env, repo, "git", "tag", "v1.0")
	p.GitCommit = strings.TrimSpace(testutil.RunOK(t, env, repo, "git", "rev-parse", "HEAD"))

	// The system package: a CMake config in a prefix of the test's own.
	testutil.WriteFile(t, filepath.Join(p.Prefix, "include", "sysdep.h"), "#define SYSDEP 0\n")
	testutil.WriteFile(t, filepath.Join(p.Prefix, "lib", "cmake", "sysdep", "sysdep-config.cmake"),
		"add_library(sysdep::sysdep INTERFACE IMPORTED)\nset_target_properties(sysdep::sysdep PROPERTIES INTERFACE_INCLUDE_DIRECTORIES \"${CMAKE_CURRENT_LIST_DIR}/../../../include\")\n")
	testutil.WriteFile(t, filepath.Join(p.Prefix, "lib", "cmake", "sysdep", "sysdep-config-version.cmake"), "set(PACKAGE_VERSION \"1.2.0\")\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\n")

	testutil.WriteFile(t, filepath.Join(p.Dir, "src", "CMakeLists.txt"), `cmake_minimum_required(VERSION 3.24)
project(mlx LANGUAGES CXX)
include(FetchContent)
FetchContent_Declare(tiny
  URL http://127.0.0.1:9/tiny-1.0.tar.gz
  URL_HASH SHA256=`+p.TinySHA+`)
FetchContent_MakeAvailable(tiny)
FetchContent_Declare(gitlib GIT_REPOSITORY `+repo+` GIT_TAG v1.0)
FetchContent_MakeAvailable(gitlib)
option(USE_SYSTEM_SYSDEP "sysdep from the system" OFF)
if(USE_SYSTEM_SYSDEP)
  find_package(sysdep CONFIG REQUIRED)
else()
  FetchContent_Declare(sysdep URL http://127.0.0.1:9/sysdep.tar.gz)
  FetchContent_MakeAvailable(sysdep)
endif()
if(WANT_EXTRA)
  FetchContent_Declare(extra URL http://127.0.0.1:9/extra.tar.gz)
  FetchContent_MakeAvailable(extra)
endif()
set(CMAKE_ARCHIVE_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
add_library(mlx STATIC mlx.cpp)
target_link_libraries(mlx PRIVATE tiny gitlib sysdep::sysdep)
`)
	testutil.WriteFile(t, filepath.Join(p.Dir, "src", "mlx.cpp"), "#include <tiny.h>\n#include <gitlib.h>\n#include <sysdep.h>\nstatic_assert(TINY + GITLIB + SYSDEP == 42, \"the dependencies' headers\");\nint mlx_answer() { return TINY + GITLIB + SYSDEP; }\n")
	testutil.WriteFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), "source:\n  dir: src\ncache: ../cache\nbackends:\n  cpu:\n    spec: cpu.yaml\n    merge: extend\n")
	p.writeSpec(t, p.TinySHA, false)
	t.Setenv("CMAKE_PREFIX_PATH", p.Prefix)
	for _, v := range []string{"MLXBUILD_CONFIG", "MLXBUILD_CACHE", "MLXBUILD_BACKENDS", "CARGO_FEATURE_ROCM", "CARGO_FEATURE_CUDA", "CARGO_FEATURE_METAL", "CARGO_FEATURE_CPU"} {
		t.Setenv(v, "")
	}
	return p
}

func (p *depsProject) writeSpec(t *testing.T, tinySHA string, extra bool) {
	t.Helper()
	spec := `dependencies:
  - name: tiny
    url: http://127.0.0.1:9/tiny-1.0.tar.gz
    sha256: "` + tinySHA + `"
    providers: [cache]
  - name: gitlib
    git: http://127.0.0.1:9/gitlib.git
    tag: v1.0
    commit: ` + p.GitCommit + `
    sha256: "` + strings.Repeat("0", 64) + `"
    providers: [cache]
  - name: sysdep
    url: http://127.0.0.1:9/sysdep.tar.gz
    providers: [system]
    system:
      find_package: sysdep
      version: ">= 1.0"
      package: sysdep-dev
      defines: [{ name: USE_SYSTEM_SYSDEP, value: "ON" }]
`
	if gitSHA := os.Getenv("MLXBUILD_TEST_GITLIB_SHA"); gitSHA != "" {
		spec = strings.Replace(spec, strings.Repeat("0", 64), gitSHA, 1)
	}
	if extra {
		spec += "defines:\n  - { name: WANT_EXTRA, value: \"ON\" }\n"
	}
	testutil.WriteFile(t, filepath.Join(p.Dir, "cpu.yaml"), spec)
}

// seed fills the cache from the mirror, given the error of a deps:fetch
// with the spec's placeholder hash for gitlib: the hash it reports (of
// mlxbuild's own archive of the commit) goes into the spec, with tiny's
// real one. It returns gitlib's hash.
func (p *depsProject) seed(t *testing.T, o flow.Options, placeholderErr error) string {
	t.Helper()
	gitSHA := ""
	if placeholderErr != nil {
		gitSHA = between(placeholderErr.Error(), "gitlib from "+filepath.Join(p.Mirror, "gitlib.git")+" at "+p.GitCommit+" has sha256 ", ",")
	}
	if len(gitSHA) != 64 {
		t.Fatalf("deps:fetch does not report the git archive's hash: %v", placeholderErr)
	}
	t.Setenv("MLXBUILD_TEST_GITLIB_SHA", gitSHA)
	p.writeSpec(t, p.TinySHA, false)
	if err := flow.DepsFetch(context.Background(), o, "cpu", p.Mirror); err != nil {
		t.Fatalf("deps:fetch -mirror: %v\n%s", err, o.Stderr)
	}
	return gitSHA
}

func tarGz(t testing.TB, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	tw := tar.NewWriter(zw)
	for name, content := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(content)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(content))
	}
	tw.Close()
	zw.Close()
	return buf.Bytes()
}

// TestBuildFromDependencyCache is the whole mechanism on a stand-in: a
// build with nothing fetched stops before configure naming each dependency
// and its URL; a wrong hash is refused and nothing is cached; deps:fetch
// seeds the cache from a local mirror; the build then configures and
// compiles with every FetchContent call answered by mlxbuild (the cache for
// the URL and git dependencies, find_package for the system one) and no
// download attempted; a second build is a no-op; an undeclared FetchContent
// stops configure naming it.
func TestBuildFromDependencyCache(t *testing.T) {
	p := newDepsProject(t)
	ctx := context.Background()
	var stdout, stderr bytes.Buffer
	o := flow.Options{Dir: p.Dir, Stdout: &stdout, Stderr: &stderr}

	_, err := flow.Build(ctx, o, "cpu")
	for _, w := range []string{"2 dependencies that no provider has", "tiny (http://127.0.0.1:9/tiny-1.0.tar.gz, declared at " + filepath.Join(p.Dir, "cpu.yaml") + ":2:5)", "gitlib (http://127.0.0.1:9/gitlib.git at v1.0", "deps:fetch"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("build with an empty cache: want an error containing %q, got %v", w, err)
		}
	}
	if _, serr := os.Stat(filepath.Join(p.Cache, "cpu", "build", "CMakeCache.txt")); !os.IsNotExist(serr) {
		t.Errorf("CMake ran although dependencies were missing (%v)", serr)
	}

	// A wrong hash for tiny, and the placeholder for gitlib: both refused,
	// each reporting the real hash; nothing lands in the cache.
	p.writeSpec(t, strings.Repeat("e", 64), false)
	err = flow.DepsFetch(ctx, o, "cpu", p.Mirror)
	if err == nil || !strings.Contains(err.Error(), "tiny from "+filepath.Join(p.Mirror, "tiny-1.0.tar.gz")+" has sha256 "+p.TinySHA) || !strings.Contains(err.Error(), "refused, nothing was cached") {
		t.Fatalf("deps:fetch with a wrong hash: %v", err)
	}
	if es, _ := os.ReadDir(filepath.Join(p.Cache, "deps", "archives")); len(es) != 0 {
		t.Fatalf("a refused archive was cached: %v", es)
	}
	gitSHA := p.seed(t, o, err)

	stderr.Reset()
	sum, err := flow.Build(ctx, o, "cpu")
	if err != nil {
		t.Fatalf("build from the cache: %v\n%s", err, stderr.String())
	}
	if !sum.Reconfigured || sum.Steps == 0 {
		t.Errorf("first build: %+v", sum)
	}
	build := filepath.Join(p.Cache, "cpu", "build")
	if _, err := os.Stat(filepath.Join(build, "libmlx.a")); err != nil {
		t.Fatal(err)
	}
	// FetchContent made no sub-build (the step that downloads): every
	// source came from mlxbuild.
	if subs, _ := filepath.Glob(filepath.Join(build, "_deps", "*-subbuild")); len(subs) != 0 {
		t.Errorf("FetchContent populated %v itself", subs)
	}
	cc, _ := os.ReadFile(filepath.Join(build, "compile_commands.json"))
	for _, w := range []string{filepath.Join(p.Cache, "deps", "src", p.TinySHA, "include"), filepath.Join(p.Cache, "deps", "src", gitSHA), filepath.Join(p.Prefix, "lib", "cmake", "sysdep")} {
		if !strings.Contains(string(cc), w) {
			t.Errorf("the compile does not use %s:\n%s", w, cc)
		}
	}
	cmakeCache, _ := os.ReadFile(filepath.Join(build, "CMakeCache.txt"))
	if !strings.Contains(string(cmakeCache), "USE_SYSTEM_SYSDEP:UNINITIALIZED=ON") && !strings.Contains(string(cmakeCache), "USE_SYSTEM_SYSDEP:BOOL=ON") {
		t.Errorf("the system provider's define is not in the CMake cache")
	}

	// plan says where each dependency comes from.
	stdout.Reset()
	if err := flow.Plan(ctx, o, "plan:cpu", "cpu"); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"tiny           cache sha256 " + p.TinySHA[:12], "gitlib         cache sha256 " + gitSHA[:12], "sysdep         system sysdep 1.2.0 (" + filepath.Join(p.Prefix, "lib", "cmake", "sysdep", "sysdep-config.cmake") + ") with USE_SYSTEM_SYSDEP=ON"} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("plan lacks %q:\n%s", w, stdout.String())
		}
	}

	stdout.Reset()
	stderr.Reset()
	sum, err = flow.Build(ctx, o, "cpu")
	if err != nil || sum.Reconfigured || sum.Steps != 0 || len(sum.Why) != 0 {
		t.Errorf("second build is not a no-op: %+v, %v", sum, err)
	}
	// A no-op with dependencies is one line too, though the first decision
	// is made before their inputs are known.
	if out := stdout.String() + stderr.String(); strings.Count(out, "\n") != 1 || !strings.Contains(out, "cpu is up to date") {
		t.Errorf("the no-op printed more than its one line:\n%s", out)
	}

	// A FetchContent call no spec declares stops configure, named.
	p.writeSpec(t, p.TinySHA, true)
	_, err = flow.Build(ctx, o, "cpu")
	// It names what the tree asks for and the one command that declares
	// and fetches it.
	for _, w := range []string{"this project fetches extra (http://127.0.0.1:9/extra.tar.gz) with FetchContent, but no spec declares it", "go run mage.go deps:lock -backend=cpu"} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Errorf("an undeclared dependency: want %q in %v", w, err)
		}
	}
}

func between(s, before, after string) string {
	i := strings.Index(s, before)
	if i < 0 {
		return ""
	}
	s = s[i+len(before):]
	if j := strings.Index(s, after); j >= 0 {
		return s[:j]
	}
	return ""
}

// TestExampleDeclaresDependency checks that the bundled example, which the
// README's main command builds, goes through the provider: its tree
// declares halfconv, its spec declares the same archive hash as its
// CMakeLists' URL_HASH, and plan takes it from the project's deps_mirror.
func TestExampleDeclaresDependency(t *testing.T) {
	testutil.NeedTools(t, "hipcc", "cmake")
	cml, err := os.ReadFile(filepath.Join(examplesDir, "minimlx", "mlx", "CMakeLists.txt"))
	if err != nil {
		t.Fatal(err)
	}
	archive, err := os.ReadFile(filepath.Join(examplesDir, "minimlx", "deps", "halfconv-1.0.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(archive)
	hash := hex.EncodeToString(s[:])
	if !strings.Contains(string(cml), "URL_HASH SHA256="+hash) {
		t.Errorf("minimlx's CMakeLists.txt does not declare halfconv with the archive's hash %s", hash)
	}
	for _, spec := range []string{"rocm.yaml", "cuda.yaml"} {
		b, _ := os.ReadFile(filepath.Join(examplesDir, "minimlx", spec))
		if !strings.Contains(string(b), `sha256: "`+hash+`"`) {
			t.Errorf("examples/minimlx/%s does not declare halfconv's hash %s", spec, hash)
		}
	}
	t.Setenv("MLXBUILD_CACHE", t.TempDir())
	t.Setenv("MLXBUILD_CONFIG", "")
	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030")
	var stdout bytes.Buffer
	if err := flow.Plan(context.Background(), flow.Options{Dir: "../..", Stdout: &stdout, Stderr: &bytes.Buffer{}}, "plan:rocm", "rocm"); err != nil {
		t.Fatal(err)
	}
	repo, _ := filepath.Abs("../..")
	want := "halfconv       cache sha256 " + hash[:12] + ", seeded from " + filepath.Join(repo, "examples", "minimlx", "deps", "halfconv-1.0.tar.gz") + " first"
	if !strings.Contains(stdout.String(), want) {
		t.Errorf("plan:rocm of the repository's project lacks %q:\n%s", want, stdout.String())
	}
	if strings.Contains(stdout.String(), "json ") || strings.Contains(stdout.String(), "MISSING") {
		t.Errorf("plan:rocm lists MLX's dependencies the example never declares:\n%s", stdout.String())
	}
}
