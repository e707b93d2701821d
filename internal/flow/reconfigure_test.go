package flow_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// childBuildEnv makes the test binary run one build:rocm in the project
// directory it names and exit, so a test can kill a real build process.
const childBuildEnv = "MLXBUILD_FLOW_TEST_CHILD_BUILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childBuildEnv); dir != "" {
		_, err := flow.Build(context.Background(), flow.Options{Dir: dir}, "rocm")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestInterruptedReconfigureIsRedone is issue 14's wrong-GPU-code repro with
// the real toolchain: build for gfx1030; start a gfx90a build that fails to
// compile, or that is killed (SIGKILL) once CMake has configured; build for
// gfx1030 again. The stamp still says gfx1030, but the build directory was
// configured for gfx90a: the third build must configure again and leave
// only gfx1030 code in the kernel archive.
func TestInterruptedReconfigureIsRedone(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "hipcc", "gcc")
	ctx := context.Background()
	fake := filepath.Join(t.TempDir(), "fakerocm")
	stubs := buildStubs(t, fake)
	p := newProject(t, "link:\n  remove: [hipfft]\n  search: ["+filepath.Join(fake, "lib")+"]\n")
	buildDir := filepath.Join(p.Cache, "rocm", "build")
	build := func(t *testing.T, archs string) (*flow.Summary, string, error) {
		t.Helper()
		t.Setenv("MLX_ROCM_ARCHITECTURES", archs)
		var stderr bytes.Buffer
		sum, err := flow.Build(ctx, flow.Options{Dir: p.Dir, Stdout: &bytes.Buffer{}, Stderr: &stderr}, "rocm")
		return sum, stderr.String(), err
	}
	// archiveHolds checks that the kernel archive has a code object for
	// exactly want among the two architectures the test uses.
	archiveHolds := func(t *testing.T, want string) {
		t.Helper()
		ar, err := os.ReadFile(filepath.Join(buildDir, hipArchive))
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range []string{"gfx1030", "gfx90a"} {
			if has := bytes.Contains(ar, []byte("hipv4-amdgcn-amd-amdhsa--"+a)); has != (a == want) {
				t.Errorf("%s holds %s code: %v, want %v", hipArchive, a, has, a == want)
			}
		}
	}
	// backToGfx1030 is the third build of the repro.
	backToGfx1030 := func(t *testing.T) {
		t.Helper()
		sum, log, err := build(t, "gfx1030")
		if err != nil {
			t.Fatalf("build:rocm for gfx1030: %v\n%s", err, log)
		}
		want := "CMake was last configured by a run that failed or was stopped (architectures: gfx90a -> gfx1030)"
		if !sum.Reconfigured || !slices.Equal(sum.Why, []string{want}) {
			t.Errorf("reconfigured %v, why %q; want a configure because %q\n%s", sum.Reconfigured, sum.Why, want, log)
		}
		if !strings.Contains(log, "==> configure ("+want+")\n") {
			t.Errorf("the configure step does not say why:\n%s", log)
		}
		archiveHolds(t, "gfx1030")
		// And now it is up to date again.
		sum, log, err = build(t, "gfx1030")
		if err != nil || sum.Reconfigured || sum.Steps != 0 || len(sum.Why) != 0 {
			t.Errorf("the build after: %+v, %v\n%s", sum, err, log)
		}
	}

	if sum, log, err := build(t, "gfx1030"); err != nil || !sum.Reconfigured {
		t.Fatalf("first build: %+v, %v\n%s", sum, err, log)
	}
	archiveHolds(t, "gfx1030")

	t.Run("after a failed compile", func(t *testing.T) {
		src := filepath.Join(p.Rocm, hipFile)
		good, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		testutil.WriteFile(t, src, string(good)+"\n#error broken on purpose by the test\n")
		_, log, err := build(t, "gfx90a")
		if err == nil || !strings.Contains(err.Error(), "build failed") {
			t.Fatalf("the broken gfx90a build: %v, want a failed build\n%s", err, log)
		}
		// The error names the user's file, not only the tree's copy.
		if msg, want := fail.Message(err), "edit "+filepath.Join(p.Rocm, hipFile)+":"; !strings.Contains(msg, want) || !strings.Contains(msg, " (overlay); the tree is a copy") {
			t.Errorf("the message does not say to edit the overlay file (%s):\n%s", want, msg)
		}
		// The user fixes the file and goes back: every stamp input is as
		// the last successful build recorded it.
		testutil.WriteFile(t, src, string(good))
		backToGfx1030(t)
	})

	t.Run("after a kill once configured", func(t *testing.T) {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(testutil.EnvWithout(childBuildEnv, "MLX_ROCM_ARCHITECTURES"), childBuildEnv+"="+p.Dir, "MLX_ROCM_ARCHITECTURES=gfx90a")
		// Its own process group, so the kill reaches ninja and the
		// compilers too and nothing outlives the test.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		configured := func() bool {
			data, err := os.ReadFile(filepath.Join(buildDir, cache.ConfigureRecordFile))
			var r cache.ConfigureRecord
			return err == nil && json.Unmarshal(data, &r) == nil && r.Done && r.Inputs["architectures"] == "gfx90a"
		}
		deadline := time.Now().Add(2 * time.Minute)
		for !configured() {
			select {
			case err := <-exited:
				t.Fatalf("the gfx90a build ended (%v) before the test saw it configured:\n%s", err, out.String())
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
				t.Fatalf("the gfx90a build did not configure in time:\n%s", out.String())
			}
		}
		if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		if err := <-exited; err == nil {
			t.Fatalf("the killed build exited 0:\n%s", out.String())
		}
		backToGfx1030(t)
	})
	_ = stubs
}
