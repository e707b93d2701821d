package compilecache_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/compilecache"
	"github.com/mlxbuild/mlxbuild/internal/procscan"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// forkStyleCheckout is newCheckout with the ROCm fork's build model
// (testdata/forkstyle) as the overlay's kernel CMakeLists.txt, compiling
// with the fake AMD clang (HIP_CLANG_PATH=fakeDir in the returned extra
// environment, to which callers add theirs).
func forkStyleCheckout(t *testing.T, root, fakeDir string) (checkout, map[string]string) {
	t.Helper()
	co := newCheckout(t, root)
	copyFile(t, filepath.Join("testdata", "forkstyle", "CMakeLists.txt"),
		filepath.Join(root, "examples", "minimlx", "patches-rocm", "mlx", "backend", "rocm", "CMakeLists.txt"))
	return co, map[string]string{"HIP_CLANG_PATH": fakeDir}
}

// hipCustomLine is Ninja's progress line for one of the stand-in's HIP
// compiles (the custom command's COMMENT).
var hipCustomLine = regexp.MustCompile(`(?m)^\[\d+/\d+\] Compiling HIP source `)

// TestCustomCommandHIPCompilesShareRedis builds two checkouts of the
// fork-style stand-in (its HIP compiles in custom commands, where no
// compiler launcher reaches) in different directories, sharing a loopback
// Redis through ccache. ccache's own counters must count every HIP compile
// of each build, and checkout B must get at least 90% of its HIP compiles
// from Redis: at least that many of its remote hits remain once every one
// of its C/C++ compiles is taken for a hit. Without mlxbuild's launcher in
// front of custom commands ccache sees none of them.
func TestCustomCommandHIPCompilesShareRedis(t *testing.T) {
	needROCm(t)
	ctx := context.Background()
	r := startRedis(t)
	fakeDir, _ := installFakeClang(t, "redis-"+strconv.Itoa(os.Getpid()))
	work := t.TempDir()

	build := func(co checkout, extra map[string]string) (cxx, hip int, st string, remoteHIP int, compiles int) {
		t.Helper()
		extra["MLXBUILD_LAUNCHER_REMOTE"] = r.URL
		var progress bytes.Buffer
		sum, ran := co.build(t, ctx, extra, &progress)
		s := launcherStats(t, "checkout "+co.Root, sum)
		hip = len(hipCustomLine.FindAllIndex(progress.Bytes(), -1))
		cxx = total(ran)
		if hip != 3 {
			t.Fatalf("%s: Ninja ran %d custom-command HIP compiles, want the stand-in's 3:\n%s", co.Root, hip, progress.String())
		}
		if s.Compiles() != cxx+hip {
			t.Fatalf("%s: ccache counted %d compiles (%s); Ninja ran %d C/C++ and %d HIP compiles: the HIP ones did not reach the cache", co.Root, s.Compiles(), s, cxx, hip)
		}
		return cxx, hip, s.String(), s.RemoteHits - cxx, s.Compiles()
	}

	coA, extraA := forkStyleCheckout(t, filepath.Join(work, "a"), fakeDir)
	_, _, stA, _, _ := build(coA, extraA)
	t.Logf("checkout A (empty Redis): %s", stA)

	coB, extraB := forkStyleCheckout(t, filepath.Join(work, "elsewhere", "b"), fakeDir)
	cxx, hip, stB, remoteHIP, _ := build(coB, extraB)
	t.Logf("checkout B: %s; of its %d HIP compiles at least %d came from Redis", stB, hip, remoteHIP)
	if 10*remoteHIP < 9*hip {
		t.Errorf("checkout B: %s with %d C/C++ compiles leaves at least %d of %d HIP compiles from Redis, want at least 90%%", stB, cxx, remoteHIP, hip)
	}
	rules, err := os.ReadFile(filepath.Join(coB.BackendDir(), "build", "build.ninja"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(rules), filepath.Join(coB.BackendDir(), "mlxbuild-launch")+" --hip=") {
		t.Errorf("build.ninja of B runs no custom command through %s", filepath.Join(coB.BackendDir(), "mlxbuild-launch"))
	}
}

// TestHIPOffloadJobsWithinJobCount builds the fork-style stand-in with
// MLXBUILD_JOBS=2 and no cache, sampling the process table every few
// milliseconds: at no moment do more than 2 compiler processes of the build
// run, counting the offload jobs -parallel-jobs=N asks of each HIP compile
// (the fake AMD clang runs them as marked processes) and gcc's cc1/cc1plus.
// The fork asks for NPROC = max(2, cores/2) per file, on top of Ninja's jobs.
func TestHIPOffloadJobsWithinJobCount(t *testing.T) {
	needROCm(t)
	ctx := context.Background()
	mark := "jobs-" + strconv.Itoa(os.Getpid())
	buildMark := "MLXBUILD_TEST_BUILD_MARK=" + mark
	t.Setenv("MLXBUILD_TEST_BUILD_MARK", mark)
	fakeDir, fake := installFakeClang(t, mark)
	co, extra := forkStyleCheckout(t, filepath.Join(t.TempDir(), "a"), fakeDir)
	extra["MLXBUILD_LAUNCHER"] = "none"

	// A count must hold over two samples 5 ms apart to be the peak: a
	// compile that is exiting while Ninja starts the next is read as alive
	// in one sample under load (seen once at 3 with -j 2), while an extra
	// compiler runs for seconds.
	hipSeen := 0
	stop := testutil.SamplePeak(func() (int, string) {
		n, hip, what := compilerProcesses(buildMark, fake, offloadJobEnv+"="+mark)
		hipSeen += hip
		return n, what
	})
	co.build(t, ctx, extra, nil)
	peak, at := stop()
	t.Logf("peak %d compiler processes: %s", peak, at)
	if hipSeen == 0 {
		t.Fatal("no sample saw a HIP compile: the sampler proves nothing")
	}
	if peak > 2 {
		t.Errorf("%d compiler processes ran at once with MLXBUILD_JOBS=2: %s", peak, at)
	}
}

// compilerProcesses counts the compiler processes of the build whose
// processes carry buildMark: each HIP compile by the fake clang (path
// fake), each offload job it runs beside it (offloadMark) and each gcc
// cc1/cc1plus. hip is the number of HIP compiles among them.
func compilerProcesses(buildMark, fake, offloadMark string) (n, hip int, what string) {
	var names []string
	for _, p := range procscan.All() {
		if !p.Alive() {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/environ")
		if err != nil || !hasVar(env, buildMark) {
			continue
		}
		cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/cmdline")
		argv0, _, _ := bytes.Cut(cmd, []byte{0})
		name := filepath.Base(string(argv0))
		switch {
		case string(argv0) == fake:
			hip++
			name = "hip"
		case hasVar(env, offloadMark):
			name = "offload-job"
		case name == "cc1" || name == "cc1plus":
		default:
			continue
		}
		n++
		names = append(names, name)
	}
	return n, hip, strings.Join(names, " ")
}

func hasVar(environ []byte, assignment string) bool {
	return bytes.Contains(append([]byte{0}, environ...), []byte("\x00"+assignment+"\x00"))
}

// TestSccacheLeavesHIPCompilesAlone builds the fork-style stand-in with
// sccache, which caches no HIP compile: the build says so once, sccache
// is asked for the C/C++ compiles alone, and the next build (nothing to do)
// says nothing more.
func TestSccacheLeavesHIPCompilesAlone(t *testing.T) {
	needROCm(t)
	testutil.NeedTools(t, "sccache")
	ctx := context.Background()
	fakeDir, _ := installFakeClang(t, "sccache-"+strconv.Itoa(os.Getpid()))
	co, extra := forkStyleCheckout(t, filepath.Join(t.TempDir(), "a"), fakeDir)
	extra["MLXBUILD_LAUNCHER"] = "sccache"
	lc := &compilecache.Config{Tool: "sccache"}
	_, lenv, err := lc.Setup(co.BackendDir(), co.Cache)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lc.Stop(context.Background(), lenv) })
	const note = "sccache (MLXBUILD_LAUNCHER) does not cache HIP compiles"

	var progress bytes.Buffer
	sum, ran := co.build(t, ctx, extra, &progress)
	if n := strings.Count(progress.String(), note); n != 1 {
		t.Errorf("the first build says %q %d times, want once:\n%s", note, n, progress.String())
	}
	if sum.LauncherTool != "sccache" || sum.Launcher == nil {
		t.Fatalf("no sccache statistics: %q %v", sum.LauncherTool, sum.Launcher)
	}
	if st := *sum.Launcher; st.Compiles()+st.Uncacheable != total(ran) {
		t.Errorf("sccache was asked %d times (%s, %d uncacheable) for %d C/C++ compiles: the HIP compiles reached it", st.Compiles()+st.Uncacheable, st, st.Uncacheable, total(ran))
	}
	progress.Reset()
	co.build(t, ctx, extra, &progress)
	if strings.Contains(progress.String(), note) {
		t.Errorf("the next build says it again:\n%s", progress.String())
	}
}
