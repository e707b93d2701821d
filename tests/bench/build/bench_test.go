// Package build benchmarks a no-op `build:rocm` of the bundled example as
// a developer runs it: through a compiled Mage binary, over the repository's
// own mlxbuild.yaml and a warm cache (both copied to a temporary directory
// with examples/minimlx, so edits in the working tree during a run do not
// count), side by side with a bare `ninja -C
// <build>` no-op of the same build directory (the floor: Ninja alone must
// stat every file of the tree), and with flow.Build in-process (the same work
// without the process start, to split the overhead); and the same for
// build:cpu.
//
//	go test ./tests/bench/build -run '^$' -bench . -benchtime 30x -count 3
//
// The set-up compiles the Mage binary (go run mage.go -compile, 15-20 s
// cold) and builds the example for gfx1030;gfx90a and for the CPU once
// (about 20 s on 2 cores), in a temporary cache. With MLXBUILD_BENCH_BASE
// naming another checkout of mlxbuild (a worktree of an older commit), its
// binary runs in the same loop over the same cache ("base", "base-cpu"), so
// a change is measured against what it changed, side by side.
package build

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// archs are fixed so the measure does not depend on the machine's GPU.
const archs = "gfx1030;gfx90a"

// setup is shared by every call of the benchmark function (Go calls it once
// per b.N it tries).
var setup struct {
	once          sync.Once
	err           error
	dir           string // temporary: the binary, the project and the cache
	repo, bin     string // the repository; the Mage binary compiled from it
	base          string // the binary compiled from MLXBUILD_BENCH_BASE, or ""
	cpuNinjad     string
	project       string // the copy of the repository's project
	cache, ninjad string
	env           []string
}

func TestMain(m *testing.M) {
	code := m.Run()
	if setup.dir != "" {
		os.RemoveAll(setup.dir)
	}
	os.Exit(code)
}

func prepare(b *testing.B) {
	for _, tool := range []string{"go", "cmake", "ninja", "hipcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "" {
				b.Skipf("%s is not installed; CI fails here", tool)
			}
			b.Fatalf("%s is not installed: CI must install it", tool)
		}
	}
	setup.once.Do(func() { setup.err = doSetup() })
	if setup.err != nil {
		b.Fatal(setup.err)
	}
}

func doSetup() error {
	var err error
	if setup.dir, err = os.MkdirTemp("", "mlxbuild-build-bench-"); err != nil {
		return err
	}
	if setup.repo, err = filepath.Abs(filepath.Join("..", "..", "..")); err != nil {
		return err
	}
	setup.bin = filepath.Join(setup.dir, "mlxbuild")
	setup.project = filepath.Join(setup.dir, "project")
	if err := copyTree(filepath.Join(setup.repo, "mlxbuild.yaml"), filepath.Join(setup.project, "mlxbuild.yaml")); err != nil {
		return err
	}
	if err := copyTree(filepath.Join(setup.repo, "examples", "minimlx"), filepath.Join(setup.project, "examples", "minimlx")); err != nil {
		return err
	}
	setup.cache = filepath.Join(setup.dir, "cache")
	setup.ninjad = filepath.Join(setup.cache, "rocm", "build")
	setup.cpuNinjad = filepath.Join(setup.cache, "cpu", "build")
	setup.env = append(os.Environ(), "MLXBUILD_CACHE="+setup.cache, "MLX_ROCM_ARCHITECTURES="+archs, "NO_COLOR=1",
		"MLXBUILD_CONFIG=", "MLXBUILD_BACKENDS=")
	ctx := context.Background()
	if out, err := runIn(ctx, setup.repo, nil, "go", "run", "mage.go", "-compile", setup.bin); err != nil {
		return fmt.Errorf("compiling the Mage binary: %v\n%s", err, out)
	}
	if base := os.Getenv("MLXBUILD_BENCH_BASE"); base != "" {
		setup.base = filepath.Join(setup.dir, "mlxbuild-base")
		if out, err := runIn(ctx, base, nil, "go", "run", "mage.go", "-compile", setup.base); err != nil {
			return fmt.Errorf("compiling the Mage binary of MLXBUILD_BENCH_BASE=%s: %v\n%s", base, err, out)
		}
	}
	// The first run builds; the second must already be a no-op.
	for _, target := range []string{"build:rocm", "build:cpu"} {
		for i := 0; i < 2; i++ {
			if out, err := runIn(ctx, setup.project, setup.env, setup.bin, target); err != nil {
				return fmt.Errorf("%s %s: %v\n%s", setup.bin, target, err, out)
			}
		}
	}
	return nil
}

// copyTree copies the file or the regular files under src to dst.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out := filepath.Join(dst, rel)
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, data, 0o644)
	})
}

// timed runs a contender as a shell or a build script would start it:
// directly (explicit arguments, no shell), not through proc.Run, whose
// supervisor would add one more process start to every contender and so
// hide part of what the ratios are about.
func timed(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func runIn(ctx context.Context, dir string, env []string, name string, args ...string) (string, error) {
	var out bytes.Buffer
	_, err := proc.Run(ctx, proc.Cmd{Path: name, Args: args, Dir: dir, Env: env, Stdout: &out, Stderr: &out})
	return out.String(), err
}

// BenchmarkNoopROCm runs, in each iteration and in this order, the Mage
// binary's build:rocm, flow.Build in-process, backends.LocateROCm,
// ninja -C <build> and the binary's -l (its start alone), then the
// binary's build:cpu and Ninja on its build,
// each a no-op, and reports each one's ms/op, the ratios mage/ninja,
// inproc/ninja, mage-cpu/ninja-cpu and locate/inproc, and flow.Build's
// phases (Summary.Phases) of the in-process runs, to show where a no-op's
// time goes.
func BenchmarkNoopROCm(b *testing.B) {
	prepare(b)
	ctx := context.Background()
	env := func(k string) string {
		switch k {
		case "MLXBUILD_CACHE":
			return setup.cache
		case "MLX_ROCM_ARCHITECTURES":
			return archs
		case "NO_COLOR":
			return "1"
		case "MLXBUILD_CONFIG", "MLXBUILD_BACKENDS":
			return ""
		}
		return os.Getenv(k)
	}
	// Without MLX_ROCM_ARCHITECTURES the build resolves the architectures
	// by probing (KFD, rocminfo) and falls back to the spec's default,
	// which is archs: the same build directory, still a no-op.
	noArchEnv := append(append([]string{}, setup.env...), "MLX_ROCM_ARCHITECTURES=")
	phases := map[string]time.Duration{} // flow.Build's own split of the in-process runs
	opts := flow.Options{Dir: setup.project, Env: env, Stdout: io.Discard, Stderr: io.Discard}
	binary := func(bin, backend string, env []string) func() error {
		return func() error {
			out, err := timed(ctx, setup.project, env, bin, "build:"+backend)
			if err == nil && !strings.Contains(out, backend+" is up to date") {
				err = fmt.Errorf("not a no-op:\n%s", out)
			}
			return err
		}
	}
	mage := func(env []string) func() error { return binary(setup.bin, "rocm", env) }
	ninja := func(dir string) func() error {
		return func() error {
			out, err := timed(ctx, "", nil, "ninja", "-C", dir)
			if err == nil && !strings.Contains(out, "no work to do") {
				err = fmt.Errorf("not a no-op:\n%s", out)
			}
			return err
		}
	}
	tools := []contender{
		{"mage", mage(setup.env)},
		{"mage-noarch", mage(noArchEnv)},
		{"inproc", func() error {
			sum, err := flow.Build(ctx, opts, "rocm")
			if err == nil && (sum.Steps != 0 || sum.Reconfigured) {
				err = fmt.Errorf("not a no-op: %+v", sum)
			}
			if err == nil {
				for _, ph := range sum.Phases {
					phases[ph.Name] += ph.Took
				}
			}
			return err
		}},
		// Not builds: toolchain discovery alone, uncached (what every
		// build ran before discovery was cached) and cached (what a
		// build runs now).
		{"locate-rocm", func() error {
			_, err := backends.LocateROCm(env)
			return err
		}},
		{"locate-rocm-cached", func() error {
			_, err := backends.LocateROCmCached(env, filepath.Join(setup.cache, "discovery"))
			return err
		}},
		{"ninja", ninja(setup.ninjad)},
		// Not a build: the binary's start alone (Go's runtime, package
		// initialization, Mage listing its targets), the part of every
		// run that no work of mlxbuild's can take away.
		{"mage-list", func() error {
			out, err := timed(ctx, setup.project, setup.env, setup.bin, "-l")
			if err == nil && !strings.Contains(out, "build:rocm") {
				err = fmt.Errorf("-l does not list build:rocm:\n%s", out)
			}
			return err
		}},
		{"mage-cpu", binary(setup.bin, "cpu", setup.env)},
		{"ninja-cpu", ninja(setup.cpuNinjad)},
	}
	if setup.base != "" {
		tools = append(tools, contender{"base", binary(setup.base, "rocm", setup.env)}, contender{"base-cpu", binary(setup.base, "cpu", setup.env)})
	}
	// Every iteration runs every contender once, so load hits all alike;
	// medians, because a loaded machine gives long tails.
	took := make([][]time.Duration, len(tools))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for j, tool := range tools {
			t0 := time.Now()
			if err := tool.run(); err != nil {
				b.Fatalf("%s: %v", tool.name, err)
			}
			took[j] = append(took[j], time.Since(t0))
		}
	}
	b.StopTimer()
	ms := map[string]float64{}
	for j, tool := range tools {
		ms[tool.name] = median(took[j])
		b.ReportMetric(ms[tool.name], tool.name+"-ms/op")
	}
	b.ReportMetric(ms["mage"]/ms["ninja"], "mage/ninja")
	b.ReportMetric(ms["mage-noarch"]/ms["ninja"], "mage-noarch/ninja")
	b.ReportMetric(ms["inproc"]/ms["ninja"], "inproc/ninja")
	b.ReportMetric(ms["mage-list"]/ms["ninja"], "mage-list/ninja")
	b.ReportMetric(ms["mage-cpu"]/ms["ninja-cpu"], "mage-cpu/ninja-cpu")
	if setup.base != "" {
		b.ReportMetric(ms["base"]/ms["ninja"], "base/ninja")
		b.ReportMetric(ms["base-cpu"]/ms["ninja-cpu"], "base-cpu/ninja-cpu")
		b.ReportMetric(ms["base"]/ms["mage"], "base/mage")
		b.ReportMetric(ms["base-cpu"]/ms["mage-cpu"], "base-cpu/mage-cpu")
	}
	b.ReportMetric(ms["locate-rocm"]/ms["locate-rocm-cached"], "locate/locate-cached")
	for name, d := range phases {
		b.ReportMetric(float64(d.Microseconds())/1000/float64(b.N), "inproc-"+strings.ReplaceAll(name, " ", "-")+"-ms/op")
	}
}

// contender is one no-op the benchmark times.
type contender struct {
	name string
	run  func() error
}

// median returns the middle duration in milliseconds.
func median(ds []time.Duration) float64 {
	s := append([]time.Duration{}, ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return float64(m.Microseconds()) / 1000
}
