package gpuidle

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// machine is a fake KFD proc directory and proc root.
type machine struct {
	t          *testing.T
	kfd, procs string
}

func newMachine(t *testing.T) *machine {
	m := &machine{t: t, kfd: filepath.Join(t.TempDir(), "kfd", "proc"), procs: filepath.Join(t.TempDir(), "proc")}
	for _, d := range []string{m.kfd, m.procs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return m
}

// process makes /proc/<pid>/comm.
func (m *machine) process(pid int, comm string) {
	dir := filepath.Join(m.procs, strconv.Itoa(pid))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "comm"), []byte(comm+"\n"), 0o644); err != nil {
		m.t.Fatal(err)
	}
}

// open and close add and remove a KFD user, the way the driver does.
func (m *machine) open(pid int) {
	if err := os.Mkdir(filepath.Join(m.kfd, strconv.Itoa(pid)), 0o755); err != nil {
		m.t.Error(err)
	}
}

func (m *machine) close(pid int) {
	if err := os.Remove(filepath.Join(m.kfd, strconv.Itoa(pid))); err != nil {
		m.t.Error(err)
	}
}

func (m *machine) probe() *Probe { return &Probe{KFDProc: m.kfd, ProcRoot: m.procs} }

func TestBusyKFD(t *testing.T) {
	m := newMachine(t)
	m.process(4242, "python3")
	m.open(4242)
	m.open(17) // no /proc entry: another pid namespace
	// The driver's directory holds only pid entries; anything else is ignored.
	if err := os.WriteFile(filepath.Join(m.kfd, "README"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := m.probe().Busy(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []Proc{{17, "?", "GPU (KFD)"}, {4242, "python3", "GPU (KFD)"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	// No KFD directory at all: a machine without a ROCm GPU is idle.
	p := m.probe()
	p.KFDProc = filepath.Join(t.TempDir(), "absent")
	if got, err := p.Busy(context.Background()); err != nil || len(got) != 0 {
		t.Fatalf("absent KFD: %v %v", got, err)
	}
}

func TestBusyCompilers(t *testing.T) {
	m := newMachine(t)
	comms := map[int]string{
		10: "bash", 11: "cc1plus", 12: "clangd", 13: "clang-15", 14: "nvcc", 15: "ptxas",
		16: "hipcc", 17: "rustc", 18: "sccache", 19: "clang-offload-b", 20: "ninja", 21: "ld.lld", 22: "cicc",
	}
	for pid, c := range comms {
		m.process(pid, c)
	}
	got, err := m.probe().Busy(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range got {
		if p.Why != "compiler" || comms[p.PID] != p.Name {
			t.Errorf("unexpected %v", p)
		}
		names = append(names, p.Name)
	}
	want := "cc1plus clang-15 nvcc ptxas hipcc rustc clang-offload-b ld.lld cicc"
	if strings.Join(names, " ") != want {
		t.Fatalf("compilers %q, want %q", strings.Join(names, " "), want)
	}
}

// TestBusyRealCompiler runs a program named cc1plus and finds it in the real /proc.
func TestBusyRealCompiler(t *testing.T) {
	if _, err := os.Stat("/proc/self/comm"); err != nil {
		t.Skip("no /proc on this system")
	}
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("no sleep program")
		}
		t.Fatal(err)
	}
	data, err := os.ReadFile(sleep)
	if err != nil {
		t.Fatal(err)
	}
	fake := filepath.Join(t.TempDir(), "cc1plus")
	if err := os.WriteFile(fake, data, 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		proc.Run(ctx, proc.Cmd{Path: fake, Args: []string{"30"}})
	}()
	defer func() { cancel(); <-done }()
	p := &Probe{}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		got, err := p.Busy(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range got {
			if q.Name == "cc1plus" && q.Why == "compiler" {
				return
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("a running cc1plus was not found in /proc")
}

// fakeSmi installs a fake nvidia-smi in dir that checks its arguments and
// prints dir/apps, exiting with the status in dir/status.
func fakeSmi(t *testing.T, dir string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	script := `#!/bin/sh
d=$(dirname "$0")
[ "$*" = "--query-compute-apps=pid,process_name --format=csv,noheader" ] || { echo "unexpected arguments: $*" >&2; exit 2; }
[ -f "$d/hang" ] && sleep 30
cat "$d/apps" 2>/dev/null
exit $(cat "$d/status" 2>/dev/null || echo 0)
`
	path := filepath.Join(dir, "nvidia-smi")
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

func write(t *testing.T, path, s string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestBusyNvidiaSmi(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "bin")
	fakeSmi(t, bin)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("CUDA_HOME", "")
	t.Setenv(EnvKFDProc, "")
	var warn bytes.Buffer
	p, err := ProbeFromEnv(os.Getenv, &warn)
	if err != nil {
		t.Fatal(err)
	}
	if p.NvidiaSmi != filepath.Join(bin, "nvidia-smi") {
		t.Fatalf("nvidia-smi found at %q, want the one on PATH", p.NvidiaSmi)
	}
	p.ProcRoot = t.TempDir() // no compilers
	p.KFDProc = ""
	busy := func() ([]Proc, error) { return p.Busy(context.Background()) }

	if got, err := busy(); err != nil || len(got) != 0 {
		t.Fatalf("no apps: %v %v", got, err)
	}
	write(t, filepath.Join(bin, "apps"), "4242, /usr/bin/python3\n977, mlxcel\n")
	got, err := busy()
	want := []Proc{{977, "mlxcel", "GPU (nvidia-smi)"}, {4242, "/usr/bin/python3", "GPU (nvidia-smi)"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("apps: got %v %v, want %v", got, err, want)
	}

	// No driver: no CUDA GPU, said once.
	write(t, filepath.Join(bin, "status"), "9")
	for range 2 {
		if got, err := busy(); err != nil || len(got) != 0 {
			t.Fatalf("no driver: %v %v", got, err)
		}
	}
	if n := strings.Count(warn.String(), "no NVIDIA driver"); n != 1 {
		t.Fatalf("warned %d times: %q", n, warn.String())
	}
	// Any other failure is an error: the check cannot vouch for the GPU.
	write(t, filepath.Join(bin, "status"), "6")
	if _, err := busy(); err == nil || !strings.Contains(err.Error(), "which processes use the GPU") {
		t.Fatalf("failing nvidia-smi: %v", err)
	}
	write(t, filepath.Join(bin, "status"), "0")
	write(t, filepath.Join(bin, "apps"), "[Not Supported], x\n")
	if _, err := busy(); err == nil || !strings.Contains(err.Error(), `"[Not Supported], x"`) {
		t.Fatalf("garbage line: %v", err)
	}
	// A hung nvidia-smi is killed at the timeout.
	write(t, filepath.Join(bin, "apps"), "")
	write(t, filepath.Join(bin, "hang"), "")
	p.SmiTimeout = 200 * time.Millisecond
	start := time.Now()
	if _, err := busy(); err == nil || !strings.Contains(err.Error(), "timed out") || time.Since(start) > 10*time.Second {
		t.Fatalf("hung nvidia-smi: %v after %s", err, time.Since(start))
	}
}

// TestComputeAppsRecorded reads nvidia-smi's answer recorded on a 2x H200 host
// while one PyTorch process held memory on both GPUs: one row per GPU, one user.
func TestComputeAppsRecorded(t *testing.T) {
	data, err := os.ReadFile("testdata/nvidia-smi-compute-apps-2xh200.txt")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(data), "\n"); n != 2 {
		t.Fatalf("the recording has %d rows, want one per GPU (2)", n)
	}
	got, err := parseComputeApps("nvidia-smi", string(data))
	want := []Proc{{797, "/opt/torch/.venv/bin/python3", "GPU (nvidia-smi)"}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v %v, want %v", got, err, want)
	}
}

func TestProbeFromEnv(t *testing.T) {
	// $CUDA_HOME/bin wins over PATH.
	home := t.TempDir()
	onPath := filepath.Join(t.TempDir(), "bin")
	fakeSmi(t, onPath)
	want := fakeSmi(t, filepath.Join(home, "bin"))
	t.Setenv("PATH", onPath)
	t.Setenv("CUDA_HOME", home)
	t.Setenv(EnvKFDProc, "")
	p, err := ProbeFromEnv(os.Getenv, nil)
	if err != nil || p.NvidiaSmi != want || p.KFDProc != DefaultKFDProc {
		t.Fatalf("got %+v %v, want nvidia-smi %s", p, err, want)
	}
	// Absent everywhere: no CUDA GPU.
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CUDA_HOME", "")
	if p, err := ProbeFromEnv(os.Getenv, nil); err != nil || p.NvidiaSmi != "" {
		t.Fatalf("no nvidia-smi: %+v %v", p, err)
	}
	// MLXBUILD_KFD_PROC must name a directory.
	kfd := t.TempDir()
	t.Setenv(EnvKFDProc, kfd)
	if p, err := ProbeFromEnv(os.Getenv, nil); err != nil || p.KFDProc != kfd {
		t.Fatalf("KFD override: %+v %v", p, err)
	}
	t.Setenv(EnvKFDProc, filepath.Join(kfd, "missing"))
	if _, err := ProbeFromEnv(os.Getenv, nil); !isConfig(err) || !strings.Contains(err.Error(), EnvKFDProc+"=") {
		t.Fatalf("missing KFD override: %v", err)
	}
}

func TestMaxFromEnv(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == EnvIdleMax {
				return v
			}
			return ""
		}
	}
	for v, want := range map[string]time.Duration{"": DefaultMax, "45m": 45 * time.Minute, "2700": 45 * time.Minute, " 1h30m ": 90 * time.Minute} {
		if got, err := MaxFromEnv(env(v)); err != nil || got != want {
			t.Errorf("%q: %v %v, want %v", v, got, err, want)
		}
	}
	for _, v := range []string{"soon", "-5m", "-1", "10x"} {
		if _, err := MaxFromEnv(env(v)); !isConfig(err) || !strings.Contains(err.Error(), EnvIdleMax) {
			t.Errorf("%q: %v", v, err)
		}
	}
}
