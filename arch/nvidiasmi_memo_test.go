package arch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/cache"
)

// fakeNvidiaProc writes a driver proc folder: a version file and one GPU
// folder per bus location with its information file.
func fakeNvidiaProc(t *testing.T, gpus map[string]string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "nvidia")
	write := func(p, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(dir, "version"), "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  580.95.05\n")
	for bus, model := range gpus {
		write(filepath.Join(dir, "gpus", bus, "information"), "Model: \t\t "+model+"\nGPU UUID: \t GPU-"+bus+"\nBus Location: \t "+bus+"\n")
	}
	return dir
}

// memoCase is a CUDA resolution with a memo folder, a fake driver folder
// and an nvidia-smi that counts its runs.
type memoCase struct {
	t          *testing.T
	env        map[string]string
	memo, proc string
	runs, smi  string
}

func newMemoCase(t *testing.T) *memoCase {
	bin := t.TempDir()
	c := &memoCase{t: t, env: isolated(t, bin), runs: filepath.Join(t.TempDir(), "runs")}
	root := t.TempDir()
	if err := cache.EnsureRoot(root); err != nil {
		t.Fatal(err)
	}
	c.memo = filepath.Join(root, "discovery")
	c.proc = fakeNvidiaProc(t, map[string]string{"0000:18:00.0": "NVIDIA H200", "0000:2a:00.0": "NVIDIA H200"})
	abs, _ := filepath.Abs("testdata/nvidia-smi/h200x2-noheader.txt")
	c.smi = fakeTool(t, bin, "nvidia-smi", `echo run >> '`+c.runs+`'; /bin/cat '`+abs+`'`)
	return c
}

func (c *memoCase) resolve() Result {
	c.t.Helper()
	r, err := ResolveCUDA(context.Background(), Options{Env: testEnv(c.env), Memo: c.memo, driverProc: c.proc})
	if err != nil || Join(r.Targets) != "90a" {
		c.t.Fatalf("got %v from %q, %v; want 90a", r.Targets, r.Source, err)
	}
	return r
}

func (c *memoCase) ran() int {
	b, _ := os.ReadFile(c.runs)
	return strings.Count(string(b), "run\n")
}

func TestNvidiaSMIKeptForTheSameGPUsAndDriver(t *testing.T) {
	c := newMemoCase(t)
	if r := c.resolve(); r.Source != "nvidia-smi rows 0,1" || c.ran() != 1 {
		t.Fatalf("first run: source %q, nvidia-smi ran %d times; want it run once", r.Source, c.ran())
	}
	r := c.resolve()
	if c.ran() != 1 {
		t.Errorf("nvidia-smi ran again for the same GPUs and driver")
	}
	if r.Source != "nvidia-smi rows 0,1, kept for the same GPUs and driver" {
		t.Errorf("kept answer's source %q does not say it was kept", r.Source)
	}
	// Without a memo folder (arch:cuda, doctor) nvidia-smi always answers.
	if _, err := ResolveCUDA(context.Background(), Options{Env: testEnv(c.env), driverProc: c.proc}); err != nil || c.ran() != 2 {
		t.Errorf("without a memo: %v, nvidia-smi ran %d times, want 2", err, c.ran())
	}
}

func TestNvidiaSMIAsksAgainWhenAnythingChanged(t *testing.T) {
	cases := map[string]func(c *memoCase){
		"a GPU swapped": func(c *memoCase) {
			p := filepath.Join(c.proc, "gpus", "0000:2a:00.0", "information")
			if err := os.WriteFile(p, []byte("Model: \t\t NVIDIA H100\nGPU UUID: \t GPU-other\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"a GPU added": func(c *memoCase) {
			p := filepath.Join(c.proc, "gpus", "0000:3b:00.0")
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(p, "information"), []byte("Model: \t\t NVIDIA H200\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"a GPU removed": func(c *memoCase) {
			if err := os.RemoveAll(filepath.Join(c.proc, "gpus", "0000:2a:00.0")); err != nil {
				t.Fatal(err)
			}
		},
		"the driver updated": func(c *memoCase) {
			if err := os.WriteFile(filepath.Join(c.proc, "version"), []byte("NVRM version: 590.10\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"nvidia-smi replaced": func(c *memoCase) {
			data, _ := os.ReadFile(c.smi)
			if err := os.WriteFile(c.smi, append(data, "\n"...), 0o755); err != nil {
				t.Fatal(err)
			}
		},
		"a torn memo": func(c *memoCase) {
			if err := os.WriteFile(filepath.Join(c.memo, gpuMemoFile), []byte("mlxbuild memo 4 "+gpuMemoKind+"\nkey "), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"an entry with a row that is no CUDA target": func(c *memoCase) {
			entry, err := os.ReadFile(filepath.Join(c.memo, gpuMemoFile))
			if err != nil {
				t.Fatal(err)
			}
			bad := strings.Replace(string(entry), `"row" "90a"`, `"row" "9x"`, 1)
			if bad == string(entry) {
				t.Fatalf("no row 90a in %q", entry)
			}
			if err := os.WriteFile(filepath.Join(c.memo, gpuMemoFile), []byte(bad), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"no driver folder (a container)": func(c *memoCase) {
			if err := os.RemoveAll(c.proc); err != nil {
				t.Fatal(err)
			}
		},
	}
	for name, change := range cases {
		t.Run(name, func(t *testing.T) {
			c := newMemoCase(t)
			c.resolve()
			change(c)
			r := c.resolve()
			if c.ran() != 2 || strings.Contains(r.Source, "kept") {
				t.Errorf("after the change nvidia-smi ran %d times (want 2), source %q", c.ran(), r.Source)
			}
		})
	}
}

// A memo is written only inside a cache root mlxbuild made.
func TestNvidiaSMIMemoNeedsACacheRoot(t *testing.T) {
	c := newMemoCase(t)
	c.memo = filepath.Join(t.TempDir(), "discovery")
	c.resolve()
	c.resolve()
	if c.ran() != 2 {
		t.Errorf("nvidia-smi ran %d times, want 2: nothing may be kept outside a cache root", c.ran())
	}
	if _, err := os.Stat(c.memo); !os.IsNotExist(err) {
		t.Errorf("the memo folder was made outside a cache root: %v", err)
	}
}
