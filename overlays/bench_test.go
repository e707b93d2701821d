package overlays

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// The overlay benchmarks compare, side by side in one loop, mlxbuild's
// Materialize with the tools it replaces or that bound it, on the real shape
// (121 overlay files over MLX's 921) and with 10k and 100k synthetic overlay
// files added. Each reports per-tool ms/op and the ratios docs/benchmarks.md
// quotes. Files live on tmpfs when there is one (see fastTempDir), or under
// MLXBUILD_BENCH_DIR.
//
//	go test ./overlays -run '^$' -bench . -benchtime 20x
//
// With MLXBUILD_BENCH_BASE naming another checkout of mlxbuild (an older
// commit), BenchmarkNoop also runs that checkout's Mage binary ("mage-base")
// in the same loop and reports base/mage-git.

// benchShape is one benchmark data set.
type benchShape struct {
	name      string
	synthetic int // overlay files added to the real overlay
}

var benchShapes = []benchShape{{"real", 0}, {"10k", 10_000}, {"100k", 100_000}}

// benchEnv is one data set on disk, and the tools to run on it.
type benchEnv struct {
	dir, pristine, overlay      string
	tree, manifest              string // mlxbuild's
	glueTree, rsyncTree, cpTree string // the other tools' own trees
	files                       int    // files of the tree
	bin, glue                   string // the cmd and the CMake script
	mage, project               string // the compiled Mage binary; a project over pristine and overlay
	gitProject                  string // a project whose source is a git repository of pristine, at its pin
	base, baseProject           string // MLXBUILD_BENCH_BASE's Mage binary and its own git project, or ""
}

func benchDir(b *testing.B) string {
	if d := os.Getenv("MLXBUILD_BENCH_DIR"); d != "" {
		d, err := os.MkdirTemp(d, "overlay-bench-")
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	return fastTempDir(b)
}

func needTools(b *testing.B, tools ...string) {
	for _, t := range tools {
		if _, err := execLookPath(t); err != nil {
			b.Skipf("%s is not installed", t)
		}
	}
}

func execLookPath(name string) (string, error) {
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s not found", name)
}

func newBenchEnv(b *testing.B, s benchShape) *benchEnv {
	b.Helper()
	needTools(b, "find", "rsync", "cmake", "cp", "go", "git")
	d := benchDir(b)
	e := &benchEnv{dir: d, pristine: filepath.Join(d, "mlx"), overlay: filepath.Join(d, "overlay"),
		tree: filepath.Join(d, "cache", "tree"), manifest: filepath.Join(d, "cache", "tree.manifest"),
		glueTree: filepath.Join(d, "glue-tree"), rsyncTree: filepath.Join(d, "rsync-tree"), cpTree: filepath.Join(d, "cp-tree")}
	p := writeShape(b, e.pristine, loadShape(b, "mlx-tree-shape.tsv"), 0)
	ov := loadShape(b, "rocm-overlay-shape.tsv")
	for i := 0; i < s.synthetic; i++ {
		ov = append(ov, shapeFile{256 + i*37%3840, fmt.Sprintf("synthetic/d%04d/f%06d.hip", i/100, i)})
	}
	o := writeShape(b, e.overlay, ov, 1)
	e.files = len(merged(p, o))
	e.bin = filepath.Join(d, "overlay-cmd")
	if _, err := proc.Run(context.Background(), proc.Cmd{Path: "go", Args: []string{"build", "-o", e.bin, "./tests/bench/overlay"}, Dir: ".."}); err != nil {
		b.Fatal(err)
	}
	e.glue, _ = filepath.Abs("../tests/bench/overlay/glue.cmake")
	// The way a user runs it: `overlay:apply rocm` through the Mage binary,
	// in a project whose source is the pristine tree and whose rocm overlay
	// is the overlay (its tree under the project's own cache).
	e.mage, e.project = filepath.Join(d, "mlxbuild"), filepath.Join(d, "project")
	if res, err := proc.Run(context.Background(), proc.Cmd{Path: "go", Args: []string{"run", "mage.go", "-compile", e.mage}, Dir: ".."}); err != nil {
		b.Fatalf("compiling the Mage binary: %v\n%s", err, res.Stderr)
	}
	project := fmt.Sprintf("source:\n  dir: %s\ncache: %s\nbackends:\n  rocm:\n    overlay: %s\n", e.pristine, filepath.Join(d, "mage-cache"), e.overlay)
	if err := os.MkdirAll(e.project, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.project, "mlxbuild.yaml"), []byte(project), 0o644); err != nil {
		b.Fatal(err)
	}
	e.mageApply(b, e.project)
	// The reference user's set-up: source.git and a pin, so the pristine
	// source is mlxbuild's own checkout in the cache, which a no-op must
	// find at the pin.
	repo := filepath.Join(d, "mlx-repo")
	e.must(b, "cp", "-a", e.pristine, repo)
	gitEnv := append(os.Environ(), "GIT_AUTHOR_NAME=bench", "GIT_AUTHOR_EMAIL=bench@example.invalid", "GIT_COMMITTER_NAME=bench",
		"GIT_COMMITTER_EMAIL=bench@example.invalid", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	for _, args := range [][]string{{"init", "--quiet", "-b", "main"}, {"add", "--", "."}, {"commit", "--quiet", "-m", "pristine"}} {
		if res, err := proc.Run(context.Background(), proc.Cmd{Path: "git", Args: args, Dir: repo, Env: gitEnv}); err != nil {
			b.Fatalf("git %s: %v\n%s", args[0], err, res.Stderr)
		}
	}
	head, err := proc.Run(context.Background(), proc.Cmd{Path: "git", Args: []string{"rev-parse", "HEAD"}, Dir: repo, Env: gitEnv})
	if err != nil {
		b.Fatal(err)
	}
	e.gitProject = filepath.Join(d, "project-git")
	gitProject := func(dir, cache string) {
		project := fmt.Sprintf("source:\n  git: %s\n  pin: %s\ncache: %s\nbackends:\n  rocm:\n    overlay: %s\n", repo, strings.TrimSpace(string(head.Stdout)), cache, e.overlay)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "mlxbuild.yaml"), []byte(project), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	gitProject(e.gitProject, filepath.Join(d, "mage-git-cache"))
	e.mageApply(b, e.gitProject)
	// MLXBUILD_BENCH_BASE names another checkout of mlxbuild (a worktree of
	// an older commit): its binary runs in the same loop ("mage-base"), in a
	// project and cache of its own (its manifest's form may differ), so a
	// change is measured against what it changed, side by side.
	if base := os.Getenv("MLXBUILD_BENCH_BASE"); base != "" {
		e.base, e.baseProject = filepath.Join(d, "mlxbuild-base"), filepath.Join(d, "project-base")
		if res, err := proc.Run(context.Background(), proc.Cmd{Path: "go", Args: []string{"run", "mage.go", "-compile", e.base}, Dir: base}); err != nil {
			b.Fatalf("compiling the Mage binary of MLXBUILD_BENCH_BASE=%s: %v\n%s", base, err, res.Stderr)
		}
		gitProject(e.baseProject, filepath.Join(d, "mage-base-cache"))
		e.mageApplyWith(b, e.base, e.baseProject)
	}
	// Every tool makes its own tree once, so each loop below is a no-op run.
	if _, _, err := Materialize(e.pristine, e.overlay, e.tree, e.manifest, nil); err != nil {
		b.Fatal(err)
	}
	e.must(b, "cp", "-a", e.pristine+"/.", e.glueTree)
	e.must(b, "rsync", "-a", "--delete", e.overlay+"/", e.pristine+"/", e.rsyncTree+"/")
	time.Sleep(20 * time.Millisecond) // past the clock tick of the last write (see racy)
	return e
}

// mageApply runs `overlay:apply rocm` through the Mage binary in project,
// with no variable of the caller's that would move its cache or project.
func (e *benchEnv) mageApply(b *testing.B, project string, wrap ...string) proc.Result {
	b.Helper()
	return e.mageApplyWith(b, e.mage, project, wrap...)
}

// mageApplyWith is mageApply with the Mage binary bin.
func (e *benchEnv) mageApplyWith(b *testing.B, bin, project string, wrap ...string) proc.Result {
	b.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "MLXBUILD_") {
			env = append(env, kv)
		}
	}
	args := append(append([]string{}, wrap...), bin, "overlay:apply", "rocm")
	res, err := proc.Run(context.Background(), proc.Cmd{Path: args[0], Args: args[1:], Dir: project, Env: append(env, "NO_COLOR=1")})
	if err != nil {
		b.Fatalf("%s overlay:apply rocm: %v\n%s%s", bin, err, res.Stdout, res.Stderr)
	}
	return res
}

// mageNoop runs `overlay:apply rocm` in project and fails unless it was a
// no-op over every file.
func (e *benchEnv) mageNoop(b *testing.B, bin, project string) {
	out := string(e.mageApplyWith(b, bin, project).Stdout)
	if !strings.Contains(out, fmt.Sprintf(" 0 written, 0 restored, 0 removed, 0 touched, %d unchanged", e.files)) {
		b.Fatalf("not a no-op: %s", out)
	}
}

// mageRSS is the Mage binary's peak RSS (MiB) on one no-op, read by
// /usr/bin/time (its wait4 sees a child that forked from the small time
// process, not from this big test binary).
func (e *benchEnv) mageRSS(b *testing.B) float64 {
	res := e.mageApply(b, e.project, "/usr/bin/time", "-f", "maxrss_kib %M")
	return maxRSS(b, res.Stderr)
}

func (e *benchEnv) must(b *testing.B, path string, args ...string) proc.Result {
	b.Helper()
	res, err := proc.Run(context.Background(), proc.Cmd{Path: path, Args: args})
	if err != nil {
		b.Fatal(err)
	}
	return res
}

// tool is one contender: a name and one run.
type tool struct {
	name string
	run  func(b *testing.B)
}

// sideBySide runs every tool once per iteration, interleaved so that the
// machine's load hits all alike, and returns each one's median duration.
func sideBySide(b *testing.B, tools []tool) map[string]time.Duration {
	for _, t := range tools {
		t.run(b) // warm caches and fault in binaries
	}
	return coldSideBySide(b, tools, func() {})
}

// median is the middle of ds: a loaded machine gives long tails, which a
// mean would charge to whichever contender they hit.
func median(ds []time.Duration) time.Duration {
	s := append([]time.Duration{}, ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

func ratio(a, b time.Duration) float64 { return float64(a) / float64(b) }

// maxRSS reads the peak RSS (MiB) the cmd printed.
func maxRSS(b *testing.B, out []byte) float64 {
	f := strings.Fields(string(out))
	for i := 0; i+1 < len(f); i++ {
		if f[i] == "maxrss_kib" {
			kib, err := strconv.Atoi(f[i+1])
			if err == nil {
				return float64(kib) / 1024
			}
		}
	}
	b.Fatalf("no maxrss in %q", out)
	return 0
}

// BenchmarkNoop times a run with nothing to do: mlxbuild in-process and as a
// whole process, the floor (find stat-ing pristine, overlay and tree), the
// CMake glue (which looks at the overlay and its copies only) and
// rsync -a --delete of both sources.
func BenchmarkNoop(b *testing.B) {
	for _, s := range benchShapes {
		b.Run(s.name, func(b *testing.B) {
			e := newBenchEnv(b, s)
			var rss float64
			tools := []tool{
				{"mlxbuild", func(b *testing.B) {
					st, _, err := Materialize(e.pristine, e.overlay, e.tree, e.manifest, nil)
					if err != nil || st.Unchanged != e.files {
						b.Fatalf("not a no-op: %+v, %v", st, err)
					}
				}},
				{"mlxbuild-process", func(b *testing.B) {
					rss = maxRSS(b, e.must(b, e.bin, e.pristine, e.overlay, e.tree, e.manifest).Stdout)
				}},
				{"mage", func(b *testing.B) { e.mageNoop(b, e.mage, e.project) }},
				{"mage-git", func(b *testing.B) { e.mageNoop(b, e.mage, e.gitProject) }},
				{"find-floor", func(b *testing.B) {
					e.must(b, "find", e.pristine, e.overlay, e.tree, "-size", "+1000000000k")
				}},
				{"cmake-glue", func(b *testing.B) {
					e.must(b, "cmake", "-DOVERLAY="+e.overlay, "-DTREE="+e.glueTree, "-P", e.glue)
				}},
				{"rsync", func(b *testing.B) {
					e.must(b, "rsync", "-a", "--delete", e.overlay+"/", e.pristine+"/", e.rsyncTree+"/")
				}},
			}
			if e.base != "" {
				tools = append(tools, tool{"mage-base", func(b *testing.B) { e.mageNoop(b, e.base, e.baseProject) }})
			}
			d := sideBySide(b, tools)
			if e.base != "" {
				b.ReportMetric(ratio(d["mage-base"], d["mage-git"]), "base/mage-git")
			}
			b.ReportMetric(ratio(d["mage"], d["find-floor"]), "mage/floor")
			b.ReportMetric(ratio(d["cmake-glue"], d["mage"]), "glue/mage")
			b.ReportMetric(ratio(d["mage-git"], d["find-floor"]), "mage-git/floor")
			b.ReportMetric(e.mageRSS(b), "mage-MiB-rss")
			b.ReportMetric(ratio(d["mlxbuild-process"], d["find-floor"]), "process/floor")
			b.ReportMetric(ratio(d["mlxbuild"], d["find-floor"]), "inproc/floor")
			b.ReportMetric(ratio(d["cmake-glue"], d["mlxbuild-process"]), "glue/process")
			b.ReportMetric(ratio(d["rsync"], d["mlxbuild-process"]), "rsync/process")
			b.ReportMetric(float64(d["mlxbuild"].Nanoseconds())/float64(e.files), "inproc-ns/file")
			b.ReportMetric(rss, "process-MiB-rss")
		})
	}
}

// BenchmarkCold times making the tree from nothing: mlxbuild in-process and
// as a process against cp -a of pristine then overlay (which leaves the same
// files but neither checks nor records anything). Removing the old trees is
// not timed.
func BenchmarkCold(b *testing.B) {
	for _, s := range benchShapes {
		b.Run(s.name, func(b *testing.B) {
			e := newBenchEnv(b, s)
			var rss float64
			clear := func(paths ...string) {
				for _, p := range paths {
					os.RemoveAll(p)
				}
			}
			tools := []tool{
				{"mlxbuild", func(b *testing.B) {
					if _, _, err := Materialize(e.pristine, e.overlay, e.tree, e.manifest, nil); err != nil {
						b.Fatal(err)
					}
				}},
				{"mlxbuild-process", func(b *testing.B) {
					rss = maxRSS(b, e.must(b, e.bin, e.pristine, e.overlay, e.tree, e.manifest).Stdout)
				}},
				{"cp-a", func(b *testing.B) {
					e.must(b, "cp", "-a", e.pristine, e.cpTree)
					e.must(b, "cp", "-a", e.overlay+"/.", e.cpTree)
				}},
			}
			d := coldSideBySide(b, tools, func() { clear(e.tree, e.manifest, e.cpTree) })
			b.ReportMetric(ratio(d["mlxbuild"], d["cp-a"]), "inproc/cp")
			b.ReportMetric(ratio(d["mlxbuild-process"], d["cp-a"]), "process/cp")
			b.ReportMetric(rss, "process-MiB-rss")
		})
	}
}

// coldSideBySide is sideBySide for runs that must start from nothing: the
// clean-up before each run is done outside the measured span.
func coldSideBySide(b *testing.B, tools []tool, reset func()) map[string]time.Duration {
	took := make([][]time.Duration, len(tools))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, t := range tools {
			reset()
			start := time.Now()
			t.run(b)
			took[j] = append(took[j], time.Since(start))
		}
	}
	b.StopTimer()
	out := map[string]time.Duration{}
	for j, t := range tools {
		out[t.name] = median(took[j])
		b.ReportMetric(float64(out[t.name].Microseconds())/1000, t.name+"-ms/op")
	}
	return out
}
