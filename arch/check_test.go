package arch

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

var (
	hipObjOnce sync.Once
	hipObj     string
	hipObjErr  error
)

// hipObject compiles a real HIP kernel for gfx1030 and gfx90a once per test
// run (Debian's hipcc compiles for both without a GPU).
func hipObject(t *testing.T) string {
	t.Helper()
	hipcc, err := exec.LookPath("hipcc")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("hipcc is not installed (apt-get install hipcc)")
		}
		t.Fatal("hipcc is not installed; .ci/run installs it")
	}
	hipObjOnce.Do(func() {
		dir, err := os.MkdirTemp("", "arch-hip-")
		if err != nil {
			hipObjErr = err
			return
		}
		src := filepath.Join(dir, "k.hip")
		if hipObjErr = os.WriteFile(src, []byte("#include <hip/hip_runtime.h>\n__global__ void k(float* x) { x[threadIdx.x] *= 2.0f; }\n"), 0o644); hipObjErr != nil {
			return
		}
		hipObj = filepath.Join(dir, "k.o")
		_, hipObjErr = proc.Run(context.Background(), proc.Cmd{Path: hipcc, Args: []string{"--offload-arch=gfx1030", "--offload-arch=gfx90a", "-c", src, "-o", hipObj}})
	})
	if hipObjErr != nil {
		t.Fatal(hipObjErr)
	}
	return hipObj
}

func TestMain(m *testing.M) {
	code := m.Run()
	if hipObj != "" {
		os.RemoveAll(filepath.Dir(hipObj))
	}
	os.Exit(code)
}

func TestInspectRealHIPObject(t *testing.T) {
	obj := hipObject(t)
	b, err := inspect(context.Background(), obj, Options{Env: testEnv(isolated(t, t.TempDir()))})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(b.ROCm, []string{"gfx1030", "gfx90a"}) || len(b.SASS)+len(b.PTX) != 0 {
		t.Errorf("Inspect = %+v, want gfx1030 and gfx90a only", b)
	}
	data, _ := os.ReadFile(obj)
	entries, _ := parseOffloadBundles(data)
	hosts := 0
	for _, e := range entries {
		if strings.HasPrefix(e.triple, "host-") {
			hosts++
		}
	}
	if hosts != 1 || len(entries) != 3 {
		t.Errorf("bundle entries = %+v, want one host and two device entries", entries)
	}
	// A bundle cut short anywhere must give no entries rather than garbage.
	i := strings.Index(string(data), bundleMagic)
	for cut := i; cut < i+200; cut += 7 {
		if es, _ := parseOffloadBundles(data[:cut]); len(es) != 0 {
			t.Fatalf("bundle cut at %d gave %+v", cut-i, es)
		}
	}
}

func TestCheckHIPObjectAgainstMachine(t *testing.T) {
	obj := hipObject(t)
	ctx := context.Background()
	t.Run("strix halo machine", func(t *testing.T) {
		env := isolated(t, t.TempDir())
		env[envKFD] = kfdTree(t, []uint64{0, 110501})
		rep, err := Check(ctx, obj, Options{Env: testEnv(env)})
		var mm *mismatchError
		if !errors.As(err, &mm) {
			t.Fatalf("err = %v, want a *MismatchError", err)
		}
		want := "built for gfx1030;gfx90a, this machine has gfx1151 (kfd nodes 1): no code for gfx1151 (it would fail with hipErrorNoBinaryForGpu); rebuild with MLX_ROCM_ARCHITECTURES=gfx1151"
		if err.Error() != want || !reflect.DeepEqual(rep.missing, []string{"gfx1151"}) {
			t.Errorf("got %q, missing %v\nwant %q", err, rep.missing, want)
		}
	})
	t.Run("matching machine", func(t *testing.T) {
		env := isolated(t, t.TempDir())
		env[envKFD] = kfdTree(t, []uint64{0, 90010, 100300, 90010})
		rep, err := Check(ctx, obj, Options{Env: testEnv(env)})
		if err != nil || len(rep.missing) != 0 || !strings.Contains(rep.Lines[0], "every GPU has code") {
			t.Errorf("got %+v, %v", rep, err)
		}
	})
	t.Run("requested subset", func(t *testing.T) {
		env := isolated(t, t.TempDir())
		env[envROCm] = "gfx90a"
		rep, err := Check(ctx, obj, Options{Env: testEnv(env)})
		if err != nil || !strings.Contains(rep.Lines[0], "the requested targets are gfx90a (MLX_ROCM_ARCHITECTURES)") {
			t.Errorf("got %+v, %v", rep, err)
		}
	})
	t.Run("no GPU to compare with", func(t *testing.T) {
		env := isolated(t, t.TempDir())
		_, err := Check(ctx, obj, Options{Env: testEnv(env)})
		var re *ResolveError
		if !errors.As(err, &re) || !strings.Contains(err.Error(), "built for gfx1030;gfx90a, but this machine's GPUs could not be resolved") {
			t.Errorf("err = %v", err)
		}
	})
}

func TestCheckFileWithoutGPUCode(t *testing.T) {
	f := filepath.Join(t.TempDir(), "plain.o")
	if err := os.WriteFile(f, []byte("\x7fELF not a GPU object"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := Check(context.Background(), f, Options{Env: testEnv(isolated(t, t.TempDir()))})
	if err == nil || !strings.Contains(err.Error(), "found no HIP offload bundle and no CUDA fat binary") {
		t.Errorf("err = %v", err)
	}
	if _, err := Check(context.Background(), filepath.Join(t.TempDir(), "missing"), Options{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: err = %v", err)
	}
}

// cuobjdump is not on this machine; a fake prints the real one's recorded
// --list-elf and --list-ptx output so the comparison logic is exercised
// (TestCheckRealCUDAObject runs the real one where it exists).
func TestCheckCUDAWithFakeCuobjdump(t *testing.T) {
	bin := t.TempDir()
	elf, _ := filepath.Abs("testdata/cuobjdump/list-elf.txt")
	ptx, _ := filepath.Abs("testdata/cuobjdump/list-ptx.txt")
	fakeTool(t, bin, "cuobjdump", `case "$1" in
--list-elf) /bin/cat '`+elf+`' ;;
--list-ptx) /bin/cat '`+ptx+`' ;;
esac`)
	f := filepath.Join(t.TempDir(), "libk.so")
	if err := os.WriteFile(f, []byte("...\x00.nv_fatbin\x00..."), 0o644); err != nil {
		t.Fatal(err)
	}
	for machine, wantErr := range map[string]bool{"86": false, "80": false, "90a": false, "75": true, "120": true, "89;120": true} {
		env := isolated(t, bin)
		env[EnvCUDA] = machine
		rep, err := Check(context.Background(), f, Options{Env: testEnv(env)})
		if (err != nil) != wantErr {
			t.Errorf("machine %s: %+v, %v; want error %v", machine, rep, err, wantErr)
			continue
		}
		if !reflect.DeepEqual(rep.Binary.SASS, []string{"80", "90a"}) || !reflect.DeepEqual(rep.Binary.PTX, []string{"90a"}) {
			t.Errorf("machine %s: binary %+v", machine, rep.Binary)
		}
		if wantErr && !strings.Contains(err.Error(), "rebuild with MLX_CUDA_ARCHITECTURES="+Join(Split(machine))) {
			t.Errorf("machine %s: %v", machine, err)
		}
	}
	// Without cuobjdump the file is reported as unreadable, not as "no GPU code".
	_, err := Check(context.Background(), f, Options{Env: testEnv(isolated(t, t.TempDir()))})
	if err == nil || !strings.Contains(err.Error(), "cuobjdump was not found") {
		t.Errorf("err = %v", err)
	}
}
