package cmake

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// rocmArchs are the two targets Debian's ROCm 5.2 compiles without a GPU:
// one wave32 (RDNA2), one wave64 (CDNA2).
var rocmArchs = []string{"gfx1030", "gfx90a"}

// TestBuildROCm builds the example with its ROCm overlay for gfx1030 and
// gfx90a with Debian's real toolchain, then proves: two code objects in each
// HIP object; a C++ consumer links and starts with LD_LIBRARY_PATH unset;
// touching one .hip rebuilds only its object and the archives; a no-op does
// nothing; a compile error comes back as file:line with the log's path.
func TestBuildROCm(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "hipcc", "c++", "objcopy", "readelf")
	ctx := context.Background()
	rocm, err := backends.LocateROCm(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range rocmArchs {
		if err := rocm.SupportsArch(a); err != nil {
			t.Fatal(err)
		}
	}

	// The tree: pristine copied, then the overlay's files over it (the
	// overlays package does this for real; records stay behind).
	work := t.TempDir()
	tree := filepath.Join(work, "tree")
	testutil.CopyTree(t, filepath.Join(exampleDir, "mlx"), tree)
	testutil.CopyTree(t, filepath.Join(exampleDir, "patches-rocm", "mlx"), filepath.Join(tree, "mlx"))

	defs, env, err := rocm.CMakeSetup(filepath.Join(work, "scratch"))
	if err != nil {
		t.Fatal(err)
	}
	defs["MLX_BUILD_ROCM"] = "ON"
	defs["CMAKE_HIP_ARCHITECTURES"] = strings.Join(rocmArchs, ";")
	build := filepath.Join(work, "build")
	var cfgLog bytes.Buffer
	start := time.Now()
	if err := Configure(ctx, ConfigureOptions{Source: tree, Build: build, Defines: defs, Env: env, Log: &cfgLog}); err != nil {
		t.Fatalf("%v\n%s", err, cfgLog.String())
	}

	t.Logf("configured in %s", time.Since(start).Round(time.Millisecond))
	start = time.Now()
	var tty bytes.Buffer
	res, err := Build(ctx, BuildOptions{Dir: build, Jobs: DefaultJobs(1), Progress: &tty, TTY: true, LogPath: filepath.Join(work, "logs", "build.log")})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("built in %s", time.Since(start).Round(time.Millisecond))
	if res.Steps < 10 {
		t.Errorf("first ROCm build ran %v", stepsOf(res))
	}
	// On a terminal the progress is one line rewritten in place.
	if !strings.Contains(tty.String(), "\r\x1b[K[") || !strings.Contains(tty.String(), "] HIP mlx/backend/rocm/binary.hip") ||
		strings.Count(tty.String(), "\n") != 1 {
		t.Errorf("TTY progress: %q", tty.String())
	}
	kernels := filepath.Join(build, "libmlx_rocm_kernels.a")
	for _, lib := range []string{filepath.Join(build, "libmlx.a"), kernels} {
		if _, err := os.Stat(lib); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("two code objects", func(t *testing.T) {
		// binary.hip holds the ahead-of-time kernels; the other sources are
		// host code (reduce.hip's kernel is compiled at run time by hiprtc).
		for _, src := range []string{"binary.hip"} {
			obj := filepath.Join(build, "mlx/backend/rocm/CMakeFiles/mlx_rocm_kernels.dir", src+".o")
			got := bundleTargets(t, obj)
			for _, a := range rocmArchs {
				if !strings.Contains(got, "hipv4-amdgcn-amd-amdhsa--"+a+"\n") {
					t.Errorf("%s: bundle holds %q, want a %s code object", src, got, a)
				}
			}
		}
		// The archive carries them too.
		ar, err := os.ReadFile(kernels)
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range rocmArchs {
			if !bytes.Contains(ar, []byte("hipv4-amdgcn-amd-amdhsa--"+a)) {
				t.Errorf("%s has no %s bundle entry", kernels, a)
			}
		}
	})

	t.Run("consumer loads with LD_LIBRARY_PATH unset", func(t *testing.T) {
		exe := filepath.Join(work, "consumer")
		testutil.RunOK(t, nil, "", "c++", "-std=c++17", "-D__HIP_PLATFORM_AMD__", "-DMLX_CONSUMER_ROCM", "-I", tree,
			filepath.Join(exampleDir, "..", "cxx-consumer", "main.cpp"),
			"-L", build, "-lmlx", "-lmlx_rocm_kernels", "-L", rocm.LibDir, "-lamdhip64", "-Wl,-rpath,"+rocm.LibDir, "-o", exe)
		cmd := exec.Command(exe)
		cmd.Env = testutil.EnvWithout("LD_LIBRARY_PATH")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("consumer: %v\n%s", err, out)
		}
		if !strings.Contains(string(out), "backend=rocm archs=gfx1030,gfx90a") {
			t.Errorf("consumer output:\n%s", out)
		}
		dyn := testutil.RunOK(t, nil, "", "readelf", "-d", exe)
		if !strings.Contains(dyn, "Shared library: [libamdhip64.so") || !strings.Contains(dyn, "Library runpath: ["+rocm.LibDir+"]") {
			t.Errorf("readelf -d:\n%s", dyn)
		}
	})

	t.Run("touch one hip file", func(t *testing.T) {
		now := time.Now()
		if err := os.Chtimes(filepath.Join(tree, "mlx/backend/rocm/binary.hip"), now, now); err != nil {
			t.Fatal(err)
		}
		// Ninja's own reasoning, shown when the assertion below fails.
		explain, _ := exec.Command("ninja", "-C", build, "-n", "-d", "explain").CombinedOutput()
		res, err := Build(ctx, BuildOptions{Dir: build})
		if err != nil {
			t.Fatal(err)
		}
		var compiled, linked []string
		for _, s := range res.Ran {
			switch s.Kind {
			case "LINK":
				linked = append(linked, s.Output)
			default:
				compiled = append(compiled, s.Output)
			}
		}
		if len(compiled) != 1 || compiled[0] != "mlx/backend/rocm/CMakeFiles/mlx_rocm_kernels.dir/binary.hip.o" {
			t.Errorf("recompiled %v, want only binary.hip.o; ninja -d explain:\n%s", compiled, explain)
		}
		if len(linked) == 0 || linked[0] != "libmlx_rocm_kernels.a" || res.Steps != len(compiled)+len(linked) {
			t.Errorf("steps %v: want binary.hip.o then the kernel archive", stepsOf(res))
		}
	})

	t.Run("no-op", func(t *testing.T) {
		res, err := Build(ctx, BuildOptions{Dir: build})
		if err != nil || res.Steps != 0 {
			t.Errorf("no-op build: %v, ran %v", err, stepsOf(res))
		}
	})

	t.Run("compile error", func(t *testing.T) {
		bad := filepath.Join(tree, "mlx/backend/rocm/reduce.hip")
		src, err := os.ReadFile(bad)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(string(src), "\n")
		const at = 12 // 1-based line of the planted error
		lines = append(lines[:at-1], append([]string{"int mlxbuild_planted = ;"}, lines[at-1:]...)...)
		if err := os.WriteFile(bad, []byte(strings.Join(lines, "\n")), 0o644); err != nil {
			t.Fatal(err)
		}
		logPath := filepath.Join(work, "logs", "failed.log")
		res, err := Build(ctx, BuildOptions{Dir: build, LogPath: logPath})
		var be *BuildError
		if !errors.As(err, &be) {
			t.Fatalf("want a *BuildError, got %v", err)
		}
		wantAt := bad + ":12:"
		if !strings.HasPrefix(res.FirstError, wantAt) || !strings.Contains(res.FirstError, "error: expected expression") {
			t.Errorf("FirstError = %q, want %s...: error: expected expression", res.FirstError, wantAt)
		}
		if !strings.Contains(err.Error(), wantAt) || !strings.Contains(err.Error(), logPath) {
			t.Errorf("error %q must name %s and the log %s", err, wantAt, logPath)
		}
		log, _ := os.ReadFile(logPath)
		if !strings.Contains(string(log), "mlxbuild_planted") {
			t.Errorf("the log %s does not hold the compiler's output", logPath)
		}
	})
}

// bundleTargets lists the offload bundle entries of a HIP object: its
// .hip_fatbin section, read with clang-offload-bundler.
func bundleTargets(t *testing.T, obj string) string {
	t.Helper()
	bundler := ""
	for _, n := range []string{"clang-offload-bundler", "clang-offload-bundler-15", "/usr/lib/llvm-15/bin/clang-offload-bundler"} {
		if p, err := exec.LookPath(n); err == nil {
			bundler = p
			break
		}
	}
	if bundler == "" {
		t.Fatal("clang-offload-bundler not found (Debian: apt-get install clang-15)")
	}
	fatbin := filepath.Join(t.TempDir(), "fatbin")
	testutil.RunOK(t, nil, "", "objcopy", "--dump-section", ".hip_fatbin="+fatbin, obj)
	return testutil.RunOK(t, nil, "", bundler, "--list", "--type=o", "--input="+fatbin)
}
