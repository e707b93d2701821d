package gpuidle

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Environment variables read here.
const (
	EnvKFDProc = "MLXBUILD_KFD_PROC" // the KFD proc directory, for tests and containers
	EnvIdleMax = "MLXBUILD_IDLE_MAX" // the longest wait: a Go duration (45m) or seconds
)

// DefaultKFDProc is where the amdgpu driver lists the processes that hold
// /dev/kfd open.
const DefaultKFDProc = "/sys/class/kfd/kfd/proc"

// ProbeFromEnv builds the probe for this machine: the KFD proc directory
// (MLXBUILD_KFD_PROC, else DefaultKFDProc), nvidia-smi from $CUDA_HOME/bin,
// else PATH (none found: no CUDA GPU), and /proc. A MLXBUILD_KFD_PROC that
// names no directory is a *ConfigError: a test or container setup is wrong
// and silently checking nothing would report a busy GPU as idle.
func ProbeFromEnv(getenv func(string) string, warn io.Writer) (*Probe, error) {
	p := &Probe{KFDProc: DefaultKFDProc, Warn: warn}
	if dir := getenv(EnvKFDProc); dir != "" {
		fi, err := os.Stat(dir)
		if err != nil || !fi.IsDir() {
			return nil, &ConfigError{fmt.Sprintf("%s=%s is not a directory; point it at a KFD proc directory (normally %s) or unset it", EnvKFDProc, dir, DefaultKFDProc)}
		}
		p.KFDProc = dir
	}
	p.NvidiaSmi = findNvidiaSmi(getenv("CUDA_HOME"))
	return p, nil
}

func findNvidiaSmi(cudaHome string) string {
	if cudaHome != "" {
		cand := filepath.Join(cudaHome, "bin", "nvidia-smi")
		if fi, err := os.Stat(cand); err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0 {
			return cand
		}
	}
	if path, err := exec.LookPath("nvidia-smi"); err == nil {
		return path
	}
	return ""
}

// MaxFromEnv reads MLXBUILD_IDLE_MAX: unset gives DefaultMax; otherwise a Go
// duration such as 45m or a whole number of seconds.
func MaxFromEnv(getenv func(string) string) (time.Duration, error) {
	v := strings.TrimSpace(getenv(EnvIdleMax))
	if v == "" {
		return DefaultMax, nil
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, &ConfigError{fmt.Sprintf("%s=%q is not a duration; use e.g. 45m, 1h or 2700 (seconds)", EnvIdleMax, v)}
	}
	return d, nil
}
