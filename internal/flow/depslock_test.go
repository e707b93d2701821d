package flow_test

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// lockProject is the bundled example (examples/minimlx) with its
// CMakeLists moved on as a pin bump moves MLX's: halfconv, declared by the
// spec at 1.0, is asked for at 1.1 (a new archive with its published
// hash), and a new git dependency, gitlib, is asked for at a tag. Both are
// served from a local mirror (an archive and a git repository); every URL
// is unreachable.
type lockProject struct {
	Dir, Src, Cache, Mirror string
	CMakeLists              string
	HalfSHA                 string // halfconv-1.1's published sha256
	Commits                 map[string]string
	gitEnv                  []string
}

func newLockProject(t *testing.T) *lockProject {
	t.Helper()
	testutil.NeedTools(t, "cmake", "ninja", "c++", "git")
	root := t.TempDir()
	p := &lockProject{Dir: filepath.Join(root, "app"), Src: filepath.Join(root, "app", "src"), Cache: filepath.Join(root, "cache"), Mirror: filepath.Join(root, "mirror"), Commits: map[string]string{}}
	testutil.CopyTree(t, filepath.Join(examplesDir, "minimlx", "mlx"), p.Src)
	p.CMakeLists = filepath.Join(p.Src, "CMakeLists.txt")

	// halfconv 1.1: the 1.0 archive's files under a new top directory.
	old, err := os.ReadFile(filepath.Join(examplesDir, "minimlx", "deps", "halfconv-1.0.tar.gz"))
	if err != nil {
		t.Fatal(err)
	}
	files := untarGz(t, old)
	renamed := map[string]string{}
	for name, content := range files {
		renamed[strings.Replace(name, "halfconv-1.0/", "halfconv-1.1/", 1)] = content
	}
	archive := tarGz(t, renamed)
	s := sha256.Sum256(archive)
	p.HalfSHA = hex.EncodeToString(s[:])
	testutil.WriteFile(t, filepath.Join(p.Mirror, "halfconv-1.1.tar.gz"), string(archive))
	testutil.WriteFile(t, filepath.Join(p.Mirror, "halfconv-1.0.tar.gz"), string(old))

	// gitlib: v1.0 defines MLX_GITLIB=2, v1.1 MLX_GITLIB=3.
	repo := filepath.Join(p.Mirror, "gitlib.git")
	p.gitEnv = append(testutil.EnvWithout("GIT_DIR", "GIT_WORK_TREE"), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	for i, tag := range []string{"v1.0", "v1.1"} {
		testutil.WriteFile(t, filepath.Join(repo, "CMakeLists.txt"), "add_library(gitlib INTERFACE)\ntarget_compile_definitions(gitlib INTERFACE MLX_GITLIB="+string(rune('2'+i))+")\n")
		if i == 0 {
			testutil.RunOK(t, p.gitEnv, repo, "git", "init", "-q", "-b", "main")
		}
		testutil.RunOK(t, p.gitEnv, repo, "git", "add", "-A")
		testutil.RunOK(t, p.gitEnv, repo, "git", "commit", "-q", "-m", tag)
		testutil.RunOK(t, p.gitEnv, repo, "git", "tag", tag)
		p.Commits[tag] = strings.TrimSpace(testutil.RunOK(t, p.gitEnv, repo, "git", "rev-parse", "HEAD"))
	}

	p.ask(t, "v1.0", p.HalfSHA)
	testutil.WriteFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), "source:\n  dir: src\ncache: ../cache\ndeps_mirror: ../mirror\nbackends:\n  cpu:\n    spec: cpu.yaml\n    merge: extend\n")
	testutil.WriteFile(t, filepath.Join(p.Dir, "cpu.yaml"), `defines:
  - { name: MLX_BUILD_HALF, value: "ON" }
dependencies:
  - name: halfconv
    url: https://example.invalid/minimlx/halfconv-1.0.tar.gz
    sha256: "83c2a030fabb644eb8d75797c6de01ad6c8d429e1e077525bfaf1e0fe715be9d"
    providers: [cache]
`)
	for _, v := range []string{"MLXBUILD_CONFIG", "MLXBUILD_CACHE", "MLXBUILD_BACKENDS", "CARGO_FEATURE_ROCM", "CARGO_FEATURE_CUDA", "CARGO_FEATURE_METAL", "CARGO_FEATURE_CPU"} {
		t.Setenv(v, "")
	}
	t.Setenv("NO_COLOR", "1")
	return p
}

// ask rewrites the example's FetchContent calls: halfconv at 1.1 with
// halfHash as its URL_HASH, and gitlib at gitTag (none for "").
func (p *lockProject) ask(t *testing.T, gitTag, halfHash string) {
	t.Helper()
	orig, err := os.ReadFile(filepath.Join(examplesDir, "minimlx", "mlx", "CMakeLists.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(string(orig), "halfconv-1.0.tar.gz\n    URL_HASH SHA256=83c2a030fabb644eb8d75797c6de01ad6c8d429e1e077525bfaf1e0fe715be9d",
		"halfconv-1.1.tar.gz\n    URL_HASH SHA256="+halfHash, 1)
	if gitTag == "" {
		testutil.WriteFile(t, p.CMakeLists, text)
		return
	}
	text = strings.Replace(text, "  FetchContent_MakeAvailable(halfconv)\n",
		"  FetchContent_MakeAvailable(halfconv)\n  FetchContent_Declare(gitlib\n    GIT_REPOSITORY https://example.invalid/gitlib.git\n    GIT_TAG "+gitTag+")\n  FetchContent_MakeAvailable(gitlib)\n  target_link_libraries(mlx PRIVATE gitlib)\n", 1)
	if !strings.Contains(text, "halfconv-1.1") || !strings.Contains(text, "gitlib") {
		t.Fatal("the example's CMakeLists.txt no longer declares halfconv as this test expects")
	}
	testutil.WriteFile(t, p.CMakeLists, text)
}

// options run the flows in the project, their output in buffers.
func (p *lockProject) options() (context.Context, flow.Options, *bytes.Buffer, *bytes.Buffer) {
	stdout, stderr := &bytes.Buffer{}, &bytes.Buffer{}
	return context.Background(), flow.Options{Dir: p.Dir, Stdout: stdout, Stderr: stderr}, stdout, stderr
}

func (p *lockProject) lock() string { return filepath.Join(p.Dir, "mlxbuild.lock") }

// offline builds with the mirror moved away: everything comes from the
// verified cache.
func (p *lockProject) offline(t *testing.T, o flow.Options) {
	t.Helper()
	if err := os.Rename(p.Mirror, p.Mirror+".away"); err != nil {
		t.Fatal(err)
	}
	defer func() {
		os.Remove(p.Mirror)
		os.Rename(p.Mirror+".away", p.Mirror)
	}()
	if err := os.Mkdir(p.Mirror, 0o755); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	o.Stderr = &stderr
	if _, err := flow.Build(context.Background(), o, "cpu"); err != nil {
		t.Fatalf("the offline build after deps:lock: %v\n%s", err, stderr.String())
	}
}

// TestDepsLockExample: on the bundled example, a build first refuses the
// new dependency naming its repository, tag and the one command; that
// command (deps:lock) declares, locks and fetches both the new dependency
// and the moved one, and the build then runs with the mirror gone. A tag
// bump afterwards is printed as name: old -> new, changes that one line of
// the lock file and nothing else, and the build follows it.
func TestDepsLockExample(t *testing.T) {
	p := newLockProject(t)
	ctx, o, stdout, stderr := p.options()

	_, err := flow.Build(ctx, o, "cpu")
	for _, w := range []string{"this project fetches gitlib (https://example.invalid/gitlib.git at v1.0)", "go run mage.go deps:lock -backend=cpu -mirror=" + p.Mirror} {
		if err == nil || !strings.Contains(err.Error(), w) {
			t.Fatalf("build with gitlib undeclared: want %q in %v", w, err)
		}
	}

	stdout.Reset()
	if err := flow.DepsLock(ctx, o, "cpu", ""); err != nil {
		t.Fatalf("deps:lock: %v\n%s", err, stderr.String())
	}
	for _, w := range []string{"halfconv: halfconv-1.0.tar.gz -> halfconv-1.1.tar.gz\n", "gitlib: new, v1.0/" + p.Commits["v1.0"][:12] + "\n"} {
		if !strings.Contains(stdout.String(), w) {
			t.Errorf("deps:lock printed no %q:\n%s", w, stdout.String())
		}
	}
	// The spec's declaration names another archive than the tree asks
	// for: both are said.
	halfAt := p.CMakeLists + ":" + declLine(t, p.CMakeLists, "FetchContent_Declare(\n    halfconv") + ":3"
	if w := "halfconv: the spec declares https://example.invalid/minimlx/halfconv-1.0.tar.gz (" + filepath.Join(p.Dir, "cpu.yaml") + ":4:5), but the tree asks for https://example.invalid/minimlx/halfconv-1.1.tar.gz (" + halfAt + ")"; !strings.Contains(stderr.String(), w) {
		t.Errorf("deps:lock does not report both declarations (%q):\n%s", w, stderr.String())
	}
	lock1, _ := os.ReadFile(p.lock())
	for _, w := range []string{"halfconv url=https://example.invalid/minimlx/halfconv-1.1.tar.gz sha256=" + p.HalfSHA + "\n", "gitlib git=https://example.invalid/gitlib.git tag=v1.0 commit=" + p.Commits["v1.0"] + " sha256="} {
		if !strings.Contains(string(lock1), w) {
			t.Errorf("the lock file lacks %q:\n%s", w, lock1)
		}
	}

	p.offline(t, o)
	// build.ninja: the compile database is an editor's aid, rewritten
	// lazily after a failed configure.
	cc := filepath.Join(p.Cache, "cpu", "build", "build.ninja")
	if b, _ := os.ReadFile(cc); !strings.Contains(string(b), "-DMLX_GITLIB=2") || !strings.Contains(string(b), filepath.Join(p.Cache, "deps", "src", p.HalfSHA)) {
		t.Errorf("the build does not use gitlib v1.0 and halfconv 1.1 from the cache:\n%s", b)
	}

	// Nothing moved: nothing printed as moved, the file as it was.
	stdout.Reset()
	if err := flow.DepsLock(ctx, o, "cpu", ""); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stdout.String(), "->") {
		t.Errorf("a re-run without a bump reports a move:\n%s", stdout.String())
	}

	// The pin bump moves gitlib's tag.
	p.ask(t, "v1.1", p.HalfSHA)
	stdout.Reset()
	if err := flow.DepsLock(ctx, o, "cpu", ""); err != nil {
		t.Fatal(err)
	}
	if want := "gitlib: v1.0/" + p.Commits["v1.0"][:12] + " -> v1.1/" + p.Commits["v1.1"][:12] + "\n"; stdout.String() != want {
		t.Errorf("the bump printed %q, want %q", stdout.String(), want)
	}
	lock2, _ := os.ReadFile(p.lock())
	l1, l2 := strings.Split(string(lock1), "\n"), strings.Split(string(lock2), "\n")
	if len(l1) != len(l2) {
		t.Fatalf("the bump changed the number of lines:\n%s\n---\n%s", lock1, lock2)
	}
	var moved []string
	for i := range l1 {
		if l1[i] != l2[i] {
			moved = append(moved, l2[i])
		}
	}
	if len(moved) != 1 || !strings.HasPrefix(moved[0], "gitlib git=https://example.invalid/gitlib.git tag=v1.1 commit="+p.Commits["v1.1"]) {
		t.Errorf("the bump changed %q, want only gitlib's line", moved)
	}
	p.offline(t, o)
	if b, _ := os.ReadFile(cc); !strings.Contains(string(b), "-DMLX_GITLIB=3") {
		t.Errorf("the build after the bump does not use gitlib v1.1:\n%s", b)
	}

	// plan says where each declaration comes from and that the tree asks
	// for it; once the tree stops asking for gitlib, deps:lock and plan
	// call it unused.
	stdout.Reset()
	if err := flow.Plan(ctx, o, "plan:cpu", "cpu"); err != nil {
		t.Fatal(err)
	}
	gitLine := p.lock() + ":" + strconv.Itoa(len(l2)-1) + ":1"
	if w := "[declared at project " + gitLine + "; the tree asks for it]"; !strings.Contains(stdout.String(), w) {
		t.Errorf("plan lacks %q:\n%s", w, stdout.String())
	}
	p.ask(t, "", p.HalfSHA)
	stderr.Reset()
	if err := flow.DepsLock(ctx, o, "cpu", ""); err != nil {
		t.Fatal(err)
	}
	if w := gitLine + ": gitlib is unused: the cpu tree no longer asks for it"; !strings.Contains(stderr.String(), w) {
		t.Errorf("deps:lock does not report gitlib unused (%q):\n%s", w, stderr.String())
	}
	stdout.Reset()
	if err := flow.Plan(ctx, o, "plan:cpu", "cpu"); err != nil {
		t.Fatal(err)
	}
	if w := "gitlib         unused: the tree does not ask for it [declared at project " + gitLine + "]"; !strings.Contains(stdout.String(), w) {
		t.Errorf("plan lacks %q:\n%s", w, stdout.String())
	}
}

// TestDepsLockRefusals: a tag the mirror lacks, a mirror entry that is not
// a git repository, an archive that does not match the published hash,
// and a dependency two specs declare differently: each is one error with
// the file:line:col to fix, and neither the lock file nor the cache is
// written.
func TestDepsLockRefusals(t *testing.T) {
	p := newLockProject(t)
	ctx, o, _, _ := p.options()
	gitAt := p.CMakeLists + ":" + declLine(t, p.CMakeLists, "FetchContent_Declare(gitlib") + ":3"
	halfAt := p.CMakeLists + ":" + declLine(t, p.CMakeLists, "FetchContent_Declare(\n    halfconv") + ":3"

	untouched := func(what string) {
		t.Helper()
		if _, err := os.Stat(p.lock()); !os.IsNotExist(err) {
			t.Errorf("%s: the lock file was written", what)
		}
		if es, _ := os.ReadDir(filepath.Join(p.Cache, "deps", "archives")); len(es) != 0 {
			t.Errorf("%s: the cache holds %d archives", what, len(es))
		}
	}

	p.ask(t, "v9.9", p.HalfSHA)
	err := flow.DepsLock(ctx, o, "cpu", "")
	if err == nil || !strings.Contains(err.Error(), gitAt+": gitlib asks for v9.9, which is not in the mirror's repository "+filepath.Join(p.Mirror, "gitlib.git")) {
		t.Errorf("a tag the mirror lacks: %v", err)
	}
	untouched("a tag the mirror lacks")

	p.ask(t, "v1.0", strings.Repeat("0", 64))
	err = flow.DepsLock(ctx, o, "cpu", "")
	if err == nil || !strings.Contains(err.Error(), halfAt+": halfconv from "+filepath.Join(p.Mirror, "halfconv-1.1.tar.gz")+" has sha256 "+p.HalfSHA+", but the tree's URL_HASH (the hash upstream publishes) is "+strings.Repeat("0", 64)) {
		t.Errorf("an archive unlike its published hash: %v", err)
	}
	untouched("a wrong published hash")

	p.ask(t, "v1.0", p.HalfSHA)
	if err := os.RemoveAll(filepath.Join(p.Mirror, "gitlib.git")); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(p.Mirror, "gitlib.git", "README"), "not a repository\n")
	err = flow.DepsLock(ctx, o, "cpu", "")
	if err == nil || !strings.Contains(err.Error(), gitAt+": the mirror's "+filepath.Join(p.Mirror, "gitlib.git")+" for gitlib is not a git repository") {
		t.Errorf("a mirror entry that is not a repository: %v", err)
	}
	untouched("a mirror that is not a repository")

	// A second backend whose spec declares halfconv otherwise: refused
	// before any configure.
	testutil.WriteFile(t, filepath.Join(p.Dir, "mlxbuild.yaml"), "source:\n  dir: src\ncache: ../cache\ndeps_mirror: ../mirror\nbackends:\n  cpu:\n    spec: cpu.yaml\n    merge: extend\n  rocm:\n    spec: rocm.yaml\n    merge: extend\n")
	testutil.WriteFile(t, filepath.Join(p.Dir, "rocm.yaml"), "dependencies:\n  - name: halfconv\n    url: https://example.invalid/minimlx/halfconv-0.9.tar.gz\n    sha256: \""+strings.Repeat("1", 64)+"\"\n    providers: [cache]\n")
	err = flow.DepsLock(ctx, o, "cpu,rocm", "")
	if err == nil || !strings.Contains(err.Error(), filepath.Join(p.Dir, "rocm.yaml")+":2:5: halfconv is declared as https://example.invalid/minimlx/halfconv-0.9.tar.gz, but "+filepath.Join(p.Dir, "cpu.yaml")+":4:5 declares it as https://example.invalid/minimlx/halfconv-1.0.tar.gz") {
		t.Errorf("two specs declaring halfconv differently: %v", err)
	}
	untouched("two specs")
}

// declLine is the 1-based line where text starts in file.
func declLine(t *testing.T, file, text string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(b), text)
	if i < 0 {
		t.Fatalf("%s lacks %q", file, text)
	}
	return strconv.Itoa(1 + strings.Count(string(b[:i]), "\n"))
}

func untarGz(t *testing.T, data []byte) map[string]string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	tr := tar.NewReader(zr)
	out := map[string]string{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		if h.Typeflag == tar.TypeReg {
			b, _ := io.ReadAll(tr)
			out[h.Name] = string(b)
		}
	}
}
