package arch

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// Environment variables this package reads.
const (
	envROCm         = "MLX_ROCM_ARCHITECTURES"
	EnvCUDA         = "MLX_CUDA_ARCHITECTURES"
	envKFD          = "MLXBUILD_KFD_TOPOLOGY"
	envProbeTimeout = "MLXBUILD_PROBE_TIMEOUT"
)

// defaultProbeTimeout bounds each probe when MLXBUILD_PROBE_TIMEOUT is unset.
// rocminfo answers in well under a second when it works; CI machines have
// seen it hang for minutes.
const defaultProbeTimeout = 15 * time.Second

// Options configures a resolution.
type Options struct {
	// Env reads the environment; nil means os.Getenv. Tests inject
	// MLX_ROCM_ARCHITECTURES, ROCM_PATH, CUDA_HOME, PATH,
	// MLXBUILD_KFD_TOPOLOGY, MLXBUILD_PROBE_TIMEOUT and the like.
	Env func(string) string
	// Default is a spec's default list, used with a warning when nothing
	// else resolves (may be nil: then resolution fails).
	Default []string
	// Var is the spec's architectures.env, the variable that overrides
	// the probes; "" is the backend's own (MLX_ROCM_ARCHITECTURES,
	// MLX_CUDA_ARCHITECTURES).
	Var string
	// Probes is the spec's architectures.probes, in the order they are
	// tried; nil is the backend's own order (kfd then rocminfo; nvidia-smi).
	Probes []string
	// Memo is a folder (the cache root's discovery/) where nvidia-smi's
	// answer is kept for the GPUs and driver it was given for; "" keeps
	// nothing. Builds set it; arch:cuda and doctor ask nvidia-smi itself.
	Memo string
	// driverProc is the NVIDIA driver's proc folder the memo's key is read
	// from; "" is /proc/driver/nvidia. Tests point it at a fake.
	driverProc string
}

// variable is the overriding variable's name for backend.
func (o Options) variable(def string) string {
	if o.Var != "" {
		return o.Var
	}
	return def
}

// probes is the probe order, or def when the spec gives none.
func (o Options) probes(def ...string) []string {
	if o.Probes != nil {
		return o.Probes
	}
	return def
}

// Result is a resolved list of targets and its story.
type Result struct {
	Targets  []string // validated, sorted, deduplicated
	Source   string   // e.g. "env MLX_ROCM_ARCHITECTURES", "kfd nodes 1,2", "nvidia-smi rows 0-7"
	Warnings []string
	tried    []string // what was tried, in order, for the failure message
	// defaulted is set when no probe found a GPU and the targets are the
	// spec's default list: that list as written and the variable that
	// chooses instead (see DefaultNote).
	defaulted struct{ list, variable string }
}

func (o Options) getenv(k string) string {
	if o.Env != nil {
		return o.Env(k)
	}
	return os.Getenv(k)
}

// childEnv is the environment for a probe. With the real environment the
// child inherits it (nil); with an injected one, the variables that steer
// the probes are taken from the injection so a test sees what it set.
func (o Options) childEnv() []string {
	if o.Env == nil {
		return nil
	}
	steer := []string{"PATH", "ROCM_PATH", "CUDA_HOME", "HSA_OVERRIDE_GFX_VERSION",
		"ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "CUDA_VISIBLE_DEVICES"}
	drop := map[string]bool{}
	for _, k := range steer {
		drop[k] = true
	}
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			env = append(env, kv)
		}
	}
	for _, k := range steer {
		if v := o.Env(k); v != "" {
			env = append(env, k+"="+v)
		}
	}
	return env
}

// probeTimeout reads MLXBUILD_PROBE_TIMEOUT: a Go duration ("500ms", "2m")
// or a number of seconds ("20", "0.5").
func (o Options) probeTimeout() (time.Duration, error) {
	s := strings.TrimSpace(o.getenv(envProbeTimeout))
	if s == "" {
		return defaultProbeTimeout, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil {
			return 0, &invalidEnvError{variable: envProbeTimeout, value: s, why: "not a duration", fix: `use a Go duration such as "15s" or a number of seconds`}
		}
		d = time.Duration(f * float64(time.Second))
	}
	if d <= 0 {
		return 0, &invalidEnvError{variable: envProbeTimeout, value: s, why: "not positive", fix: `use a duration such as "15s"`}
	}
	return d, nil
}

// invalidEnvError is an environment variable with a value that cannot be
// used. It is a configuration error.
type invalidEnvError struct {
	variable, value, why, fix string
	err                       error
}

func (e *invalidEnvError) Error() string {
	msg := fmt.Sprintf("%s=%q: %s", e.variable, e.value, e.why)
	if e.err != nil {
		msg = fmt.Sprintf("%s=%q: %v", e.variable, e.value, e.err)
	}
	return msg + "; " + e.fix
}

func (e *invalidEnvError) Unwrap() error { return e.err }

// findTool looks for an executable named name in dir first (ROCM_PATH/bin or
// CUDA_HOME/bin), then in the PATH that Options gives (not necessarily the
// process's own, so tests can put fakes first).
func (o Options) findTool(name, dir string) (string, bool) {
	var dirs []string
	if dir != "" {
		dirs = append(dirs, dir)
	}
	dirs = append(dirs, filepath.SplitList(o.getenv("PATH"))...)
	for _, d := range dirs {
		if d == "" {
			continue
		}
		p := filepath.Join(d, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// Kind is configuration: a variable that does not parse is the user's to
// fix.
func (e *invalidEnvError) Kind() fail.Kind { return fail.Config }
