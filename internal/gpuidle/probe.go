// Package gpuidle waits until a machine is quiet enough to measure on: no
// process has used the GPU, and no compiler has run, for a given time. The
// reference project accepts kernel ports on decode tok/s measured before and
// after, and a neighbour's job on the GPU or a build on the CPU skews both.
//
// The GPU's users come from the KFD proc directory for ROCm (one entry per
// process holding /dev/kfd open) and from nvidia-smi's compute-apps query for
// CUDA; compilers are found by process name under /proc.
package gpuidle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// Proc is one process that keeps the machine busy.
type Proc struct {
	PID  int
	Name string // comm or nvidia-smi's process_name; "?" when unknown
	Why  string // "GPU (KFD)", "GPU (nvidia-smi)" or "compiler"
}

func (p Proc) String() string { return fmt.Sprintf("pid %d %s [%s]", p.PID, p.Name, p.Why) }

// Probe looks at the machine once per Busy call. The zero value checks
// nothing; ProbeFromEnv fills it for the real machine. One goroutine at a
// time may use a Probe (it remembers which warnings it gave).
type Probe struct {
	// KFDProc is the KFD proc directory (/sys/class/kfd/kfd/proc); empty or
	// absent means no ROCm GPU.
	KFDProc string
	// NvidiaSmi is the nvidia-smi program; empty means no CUDA GPU.
	NvidiaSmi string
	// SmiTimeout bounds one nvidia-smi run (default 15 s): a wedged driver
	// makes it hang.
	SmiTimeout time.Duration
	// ProcRoot is the proc filesystem (default /proc), read for compilers and
	// for the names of KFD users.
	ProcRoot string
	// IsCompiler says whether a comm names a compiler; nil means IsCompiler.
	IsCompiler func(comm string) bool
	// Warn receives notes about checks that were skipped; nil discards them.
	Warn io.Writer

	warnedSmi bool
}

// Busy returns every process that uses the GPU or compiles right now,
// ordered by pid. A process both on the GPU and a compiler appears twice.
func (p *Probe) Busy(ctx context.Context) ([]Proc, error) {
	var out []Proc
	kfd, err := p.kfdUsers()
	if err != nil {
		return nil, err
	}
	out = append(out, kfd...)
	cuda, err := p.cudaUsers(ctx)
	if err != nil {
		return nil, err
	}
	out = append(out, cuda...)
	cc, err := p.compilers()
	if err != nil {
		return nil, err
	}
	out = append(out, cc...)
	slices.SortStableFunc(out, func(a, b Proc) int { return a.PID - b.PID })
	return out, nil
}

func (p *Probe) procRoot() string {
	if p.ProcRoot == "" {
		return "/proc"
	}
	return p.ProcRoot
}

// pids lists the numeric entries of dir; a missing dir lists nothing.
func pids(dir string) ([]int, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out, nil
}

// comm reads a process's name; ok is false when the process is gone (or, for
// KFD users, lives in another pid namespace).
func (p *Probe) comm(pid int) (string, bool) {
	b, err := os.ReadFile(filepath.Join(p.procRoot(), strconv.Itoa(pid), "comm"))
	if err != nil {
		return "", false
	}
	return strings.TrimSpace(string(b)), true
}

func (p *Probe) kfdUsers() ([]Proc, error) {
	if p.KFDProc == "" {
		return nil, nil
	}
	ids, err := pids(p.KFDProc)
	if err != nil {
		return nil, fmt.Errorf("reading the KFD proc directory %s: %w; check permissions or point MLXBUILD_KFD_PROC elsewhere", p.KFDProc, err)
	}
	out := make([]Proc, 0, len(ids))
	for _, pid := range ids {
		name, ok := p.comm(pid)
		if !ok {
			name = "?"
		}
		out = append(out, Proc{PID: pid, Name: name, Why: "GPU (KFD)"})
	}
	return out, nil
}

func (p *Probe) compilers() ([]Proc, error) {
	root := p.procRoot()
	ids, err := pids(root)
	if err != nil {
		return nil, fmt.Errorf("listing processes in %s: %w", root, err)
	}
	is := p.IsCompiler
	if is == nil {
		is = IsCompiler
	}
	var out []Proc
	for _, pid := range ids {
		// A process that exits between the listing and this read is no compiler.
		if name, ok := p.comm(pid); ok && is(name) {
			out = append(out, Proc{PID: pid, Name: name, Why: "compiler"})
		}
	}
	return out, nil
}

// compilerNames are the comms of compilers, their drivers, assemblers and
// linkers: everything a build runs that competes with a benchmark.
var compilerNames = map[string]bool{
	"cc1": true, "cc1plus": true, "cc1obj": true, "lto1": true, "collect2": true, "as": true,
	"cc": true, "c++": true, "gcc": true, "g++": true, "clang": true, "clang++": true,
	"ld": true, "ld.bfd": true, "ld.gold": true, "ld.lld": true, "lld": true, "mold": true,
	"hipcc": true, "hipcc.pl": true, "hipcc.bin": true,
	"nvcc": true, "ptxas": true, "cicc": true, "cudafe++": true, "fatbinary": true, "nvlink": true,
	"rustc": true,
}

// compilerPrefixes catch versioned names (clang-15, g++-12) and helpers that
// the kernel's 15-byte comm truncates (clang-offload-bundler).
var compilerPrefixes = []string{"clang-", "clang++-", "gcc-", "g++-"}

// IsCompiler reports whether comm (a /proc/<pid>/comm, at most 15 bytes)
// names a compiler, assembler or linker. Long-lived helpers such as clangd,
// sccache or rust-analyzer do not count: they idle for hours.
func IsCompiler(comm string) bool {
	if compilerNames[comm] {
		return true
	}
	for _, p := range compilerPrefixes {
		if strings.HasPrefix(comm, p) {
			return true
		}
	}
	return false
}

// smiNoDriver are nvidia-smi's exit statuses for "no NVIDIA driver" (9) and
// "NVML library not found" (12): nothing can be running on such a GPU.
var smiNoDriver = map[int]bool{9: true, 12: true}

func (p *Probe) cudaUsers(ctx context.Context) ([]Proc, error) {
	if p.NvidiaSmi == "" {
		return nil, nil
	}
	timeout := p.SmiTimeout
	if timeout <= 0 {
		timeout = 15 * time.Second
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := proc.Run(ctx, proc.Cmd{Path: p.NvidiaSmi, Args: []string{"--query-compute-apps=pid,process_name", "--format=csv,noheader"}})
	if err != nil {
		if smiNoDriver[res.ExitCode] {
			if !p.warnedSmi && p.Warn != nil {
				fmt.Fprintf(p.Warn, "%s exits %d (no NVIDIA driver): not checking CUDA processes\n", p.NvidiaSmi, res.ExitCode)
			}
			p.warnedSmi = true
			return nil, nil
		}
		return nil, fmt.Errorf("asking %s which processes use the GPU: %w; fix the driver or remove nvidia-smi from CUDA_HOME/bin and PATH", p.NvidiaSmi, err)
	}
	return parseComputeApps(p.NvidiaSmi, string(res.Stdout))
}

// parseComputeApps reads "pid, process_name" lines.
func parseComputeApps(tool, out string) ([]Proc, error) {
	var procs []Proc
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		// nvidia-smi's table mode says this for an empty list; tolerate it
		// in case a driver prints it in CSV mode too.
		if line == "" || strings.HasPrefix(line, "No running processes found") {
			continue
		}
		pidText, name, _ := strings.Cut(line, ",")
		pid, err := strconv.Atoi(strings.TrimSpace(pidText))
		if err != nil || pid <= 0 {
			return nil, fmt.Errorf("%s printed %q, not \"pid, process_name\"; check that it is NVIDIA's nvidia-smi", tool, line)
		}
		name = strings.TrimSpace(name)
		if name == "" {
			name = "?"
		}
		// One row per GPU the process uses: a process on two GPUs is one user.
		p := Proc{PID: pid, Name: name, Why: "GPU (nvidia-smi)"}
		if !slices.Contains(procs, p) {
			procs = append(procs, p)
		}
	}
	return procs, nil
}
