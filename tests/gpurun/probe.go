package gpurun

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// ErrNoGPU is wrapped by FindGPUs's error when nvidia-smi is missing, fails
// (no driver, a wedged driver) or lists no GPU.
var ErrNoGPU = errors.New("no NVIDIA GPU")

// ProbeTimeout bounds the nvidia-smi run: a wedged driver can make it hang.
const ProbeTimeout = 15 * time.Second

// GPUs is what `nvidia-smi -L` listed.
type GPUs struct {
	Tool  string   // the nvidia-smi that answered
	Lines []string // one "GPU N: NAME (UUID: ...)" line per GPU
}

// FindGPUs runs `nvidia-smi -L`, found in $CUDA_HOME/bin, else on PATH
// (both read through env; nil means os.Getenv), and returns the GPUs it
// lists. Any failure wraps ErrNoGPU and says what nvidia-smi did.
func FindGPUs(ctx context.Context, env func(string) string) (GPUs, error) {
	if env == nil {
		env = os.Getenv
	}
	tool := lookNvidiaSMI(env)
	if tool == "" {
		return GPUs{}, fmt.Errorf("%w: nvidia-smi is not in $CUDA_HOME/bin or on PATH; install the NVIDIA driver", ErrNoGPU)
	}
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	res, err := proc.Run(ctx, proc.Cmd{Path: tool, Args: []string{"-L"}})
	if err != nil {
		msg := strings.TrimSpace(string(res.Stdout) + " " + string(res.Stderr))
		return GPUs{}, fmt.Errorf("%w: %s -L failed: %v (%s); check the NVIDIA driver with nvidia-smi", ErrNoGPU, tool, err, firstLine(msg))
	}
	g := GPUs{Tool: tool}
	for _, line := range strings.Split(string(res.Stdout), "\n") {
		line = strings.TrimSpace(line)
		// Only "GPU N: ..." lines are GPUs; MIG devices are indented
		// "MIG ..." lines under their GPU and do not count twice.
		if strings.HasPrefix(line, "GPU ") && strings.Contains(line, ": ") {
			g.Lines = append(g.Lines, line)
		}
	}
	if len(g.Lines) == 0 {
		return g, fmt.Errorf("%w: %s -L listed no GPU (%s)", ErrNoGPU, tool, firstLine(strings.TrimSpace(string(res.Stdout))))
	}
	return g, nil
}

// lookNvidiaSMI returns $CUDA_HOME/bin/nvidia-smi when it is a program,
// else the first nvidia-smi on env's PATH, else "".
func lookNvidiaSMI(env func(string) string) string {
	var dirs []string
	if h := env("CUDA_HOME"); h != "" {
		dirs = append(dirs, filepath.Join(h, "bin"))
	}
	dirs = append(dirs, filepath.SplitList(env("PATH"))...)
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, "nvidia-smi")
		if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return "no output"
	}
	return s
}
