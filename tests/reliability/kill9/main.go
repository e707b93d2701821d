// Command kill9 is the kill -9 campaign of docs/reliability.md: it builds
// the bundled example (examples/minimlx, ROCm backend) with the compiled
// mlxbuild binary for gfx1030, starts a gfx90a build and kills it with
// SIGKILL at a random moment, builds gfx1030 again, and checks that the run
// converged: the last build succeeded, and the code objects of every
// archive of the link plan are exactly the architectures that link.json
// and cargo.txt give the consumer (verify's gpu_code check), which are
// gfx1030. A trial that fails that is torn. It also counts processes of
// the killed build (they carry a marker variable) still alive 1 s and 5 s
// after the kill: orphans. (A build left running by a killed mlxbuild may
// finish within seconds, so the 1 s count is the one that shows them.)
//
//	go run ./tests/reliability/kill9 -trials 10
//
// Run it from the repository root (-repo names another checkout, to
// measure another commit with the same campaign); it needs go, cmake, ninja and Debian's
// ROCm (hipcc). Each trial rebuilds the example once or twice (about a
// minute on 2 cores); the set-up compiles the binary and builds once.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/procscan"
	"github.com/mlxbuild/mlxbuild/internal/verify"
)

// archEnv is the rustc-env key of the ROCm spec's link plan that holds the list.
const archEnv = "MLXBUILD_GPU_ARCHITECTURES"

// orphanEarly and orphanLate are when, after the kill, the processes of the
// killed build are counted. The supervisor stops the tree as soon as
// mlxbuild dies (Ninja and compilers end on SIGTERM in milliseconds); within
// orphanLate it has had proc.Grace and room for a busy machine.
const (
	orphanEarly = time.Second
	orphanLate  = 5 * time.Second
)

type campaign struct {
	bin, project, cache string
	log                 *os.File // every build's output, for a torn trial's story
}

type trial struct {
	delay       time.Duration
	finished    bool   // the gfx90a build ended before the kill
	phase       string // the last step the killed build had printed
	early       int    // processes of the killed build alive orphanEarly after the kill
	orphans     int    // ... and orphanLate after it
	rebuildErr  error
	upToDate    bool // the gfx1030 build after the kill said "up to date"
	check       verify.Result
	planList    string
	converged   bool
	description string
}

func main() {
	trials := flag.Int("trials", 10, "number of kill trials")
	seed := flag.Int64("seed", time.Now().UnixNano(), "random seed of the kill moments")
	keep := flag.Bool("keep", false, "keep the work directory (binary, project copy, cache, build log)")
	repo := flag.String("repo", ".", "the checkout whose mlxbuild and example to build (another commit, to compare)")
	flag.Parse()
	if err := run(*repo, *trials, *seed, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "kill9:", err)
		os.Exit(1)
	}
}

func run(repo string, trials int, seed int64, keep bool) error {
	repo, err := filepath.Abs(repo)
	if err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(repo, "examples", "minimlx")); err != nil {
		return fmt.Errorf("run from the repository root, or name it with -repo (no examples/minimlx here): %w", err)
	}
	work, err := os.MkdirTemp("", "mlxbuild-kill9-")
	if err != nil {
		return err
	}
	if keep {
		fmt.Println("work directory:", work)
	} else {
		defer os.RemoveAll(work)
	}
	c := &campaign{bin: filepath.Join(work, "mlxbuild"), project: filepath.Join(work, "project"), cache: filepath.Join(work, "cache")}
	if c.log, err = os.Create(filepath.Join(work, "builds.log")); err != nil {
		return err
	}
	defer c.log.Close()
	ctx := context.Background()
	if err := os.MkdirAll(filepath.Join(c.project, "examples"), 0o755); err != nil {
		return err
	}
	for _, p := range []string{"mlxbuild.yaml", "examples/minimlx"} {
		if _, err := proc.Run(ctx, proc.Cmd{Path: "cp", Args: []string{"-R", "--", filepath.Join(repo, p), filepath.Join(c.project, p)}}); err != nil {
			return fmt.Errorf("copying the example: %w", err)
		}
	}
	if _, err := proc.Run(ctx, proc.Cmd{Path: "go", Args: []string{"run", "mage.go", "-compile", c.bin}, Dir: repo}); err != nil {
		return fmt.Errorf("compiling mlxbuild: %w", err)
	}
	t0 := time.Now()
	if out, err := c.build(ctx, "gfx1030"); err != nil {
		return fmt.Errorf("the first gfx1030 build failed: %v\n%s", err, out)
	}
	full := time.Since(t0)
	fmt.Printf("seed %d; a full build took %s; kills land uniformly in [0.05, 1.0] of that\n", seed, full.Round(time.Millisecond))
	rng := rand.New(rand.NewSource(seed))
	var results []trial
	torn := false
	for i := 0; i < trials; i++ {
		if torn {
			// Start the next trial from a sound gfx1030 build.
			if err := os.RemoveAll(c.cache); err != nil {
				return err
			}
			if out, err := c.build(ctx, "gfx1030"); err != nil {
				return fmt.Errorf("trial %d: rebuilding gfx1030 from an empty cache failed: %v\n%s", i+1, err, out)
			}
		}
		delay := time.Duration(float64(full) * (0.05 + 0.95*rng.Float64()))
		tr, err := c.trial(ctx, i+1, delay)
		if err != nil {
			return err
		}
		torn = !tr.converged
		results = append(results, tr)
		fmt.Printf("trial %2d: kill after %6s (%-26s) alive after 1s/5s: %d/%d; next gfx1030 build: %s\n", i+1, tr.delay.Round(time.Millisecond), tr.phase, tr.early, tr.orphans, tr.description)
	}
	summarize(results)
	return nil
}

// trial runs one kill and the build after it.
func (c *campaign) trial(ctx context.Context, n int, delay time.Duration) (trial, error) {
	tr := trial{delay: delay}
	marker := fmt.Sprintf("MLXBUILD_KILL9_RUN=%d-%d", os.Getpid(), n)
	// os/exec, not proc.Run: the campaign needs the pid to send SIGKILL
	// itself, which is the point; proc.Run would stop it politely.
	var out bytes.Buffer
	cmd := exec.Command(c.bin, "build:rocm")
	cmd.Dir = c.project
	cmd.Env = append(c.env("gfx90a"), marker)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return tr, err
	}
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	select {
	case <-waited:
		tr.finished = true
	case <-time.After(delay):
		_ = cmd.Process.Signal(syscall.SIGKILL)
		<-waited
	}
	fmt.Fprintf(c.log, "### trial %d: gfx90a build, SIGKILL after %s\n%s\n", n, delay, out.String())
	tr.phase = lastStep(out.String())
	if tr.finished {
		tr.phase = "finished before the kill"
	}
	time.Sleep(orphanEarly)
	tr.early = len(procscan.Marked(marker))
	time.Sleep(orphanLate - orphanEarly)
	for _, p := range procscan.Marked(marker) {
		tr.orphans++
		_ = syscall.Kill(p, syscall.SIGKILL) // it carries this trial's marker: the campaign started it
	}
	rebuilt, err := c.build(ctx, "gfx1030")
	fmt.Fprintf(c.log, "### trial %d: gfx1030 build after the kill\n%s\n", n, rebuilt)
	tr.rebuildErr = err
	tr.upToDate = strings.Contains(rebuilt, "rocm is up to date")
	plan := filepath.Join(c.cache, "rocm", "out", "link.json")
	tr.check = verify.GPUCode{LinkPlan: plan, Backend: "rocm", ArchEnv: archEnv}.Run(ctx)
	tr.planList = planList(plan)
	switch {
	case err != nil:
		tr.description = "failed: " + firstLine(err.Error())
	case tr.check.Status != verify.Pass:
		tr.description = "TORN: " + findings(tr.check)
	case tr.planList != "gfx1030":
		tr.description = "TORN: the plan says " + tr.planList + ", not gfx1030"
	default:
		tr.converged = true
		tr.description = "converged (" + tr.check.Reason + ")"
	}
	if tr.upToDate {
		tr.description += `, said "up to date"`
	}
	return tr, nil
}

// build runs build:rocm for archs and returns its output.
func (c *campaign) build(ctx context.Context, archs string) (string, error) {
	var out bytes.Buffer
	_, err := proc.Run(ctx, proc.Cmd{Path: c.bin, Args: []string{"build:rocm"}, Dir: c.project, Env: c.env(archs), Stdout: &out, Stderr: &out})
	return out.String(), err
}

func (c *campaign) env(archs string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "MLXBUILD_CACHE", "MLXBUILD_CONFIG", "MLXBUILD_BACKENDS", "MLX_ROCM_ARCHITECTURES", "MLXBUILD_JOBS":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "MLXBUILD_CACHE="+c.cache, "MLX_ROCM_ARCHITECTURES="+archs, "NO_COLOR=1", "MLXBUILD_JOBS=2")
}

func summarize(rs []trial) {
	var killed, converged, torn, failed, orphanTrials, orphans, tornUpToDate, earlyTrials, early int
	for _, r := range rs {
		if !r.finished {
			killed++
		}
		switch {
		case r.converged:
			converged++
		case r.rebuildErr != nil:
			failed++
		default:
			torn++
			if r.upToDate {
				tornUpToDate++
			}
		}
		if r.early > 0 {
			earlyTrials++
			early += r.early
		}
		if r.orphans > 0 {
			orphanTrials++
			orphans += r.orphans
		}
	}
	fmt.Printf("\ntrials %d (killed mid-build %d), converged %d, torn %d (%d of them \"up to date\"), next build failed %d; orphans: trials with processes alive 1 s after the kill %d (%d processes), 5 s after %d (%d processes)\n",
		len(rs), killed, converged, torn, tornUpToDate, failed, earlyTrials, early, orphanTrials, orphans)
}

// lastStep is the last "==> " step or Ninja progress line of a build's output.
func lastStep(out string) string {
	step := "before any step"
	for _, l := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(l, "==> configure"):
			step = "configuring"
		case strings.HasPrefix(l, "==> build with"):
			step = "configured, compiling"
		case strings.HasPrefix(l, "["):
			if i := strings.IndexByte(l, ']'); i > 0 {
				step = "compiling, " + l[1:i] + " done"
			}
		}
	}
	return step
}

func planList(plan string) string {
	p, err := linkplan.Read(filepath.Dir(plan))
	if errors.Is(err, fs.ErrNotExist) {
		return "(no link.json)"
	} else if err != nil {
		return "(link.json unreadable)"
	}
	return p.Env[archEnv]
}

func findings(r verify.Result) string {
	var parts []string
	for _, f := range r.Findings {
		parts = append(parts, f.Message)
	}
	if len(parts) == 0 {
		return r.Status.String() + ": " + r.Reason
	}
	return strings.Join(parts, "; ")
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
