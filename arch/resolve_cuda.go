package arch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// ResolveCUDA finds the CUDA architectures to build for: the variable
// (o.Var, default MLX_CUDA_ARCHITECTURES; CMake's native, all and all-major
// pass through), else every row of nvidia-smi's compute_cap query (the one
// probe o.Probes may name), else o.Default with a warning. There is no
// silent default: when nothing resolves it returns a *ResolveError naming
// the variable.
func ResolveCUDA(ctx context.Context, o Options) (Result, error) {
	var r Result
	if v := o.getenv("CUDA_VISIBLE_DEVICES"); v != "" {
		r.Warnings = append(r.Warnings, fmt.Sprintf("CUDA_VISIBLE_DEVICES=%s is set: programs will use only those GPUs, but nvidia-smi lists all of them", v))
	}
	timeout, err := o.probeTimeout()
	if err != nil {
		return r, err
	}
	name := o.variable(EnvCUDA)
	if v := o.getenv(name); strings.TrimSpace(v) != "" {
		targets, err := fromEnv(CUDA, name, v)
		if err != nil {
			return r, err
		}
		return finish(CUDA, r, targets, "env "+name), nil
	}
	r.tried = append(r.tried, "env "+name+": not set")

	for _, probe := range o.probes("nvidia-smi") {
		if probe != "nvidia-smi" {
			return r, fail.Configf("architectures.probes: %q does not find CUDA GPUs; use nvidia-smi", probe)
		}
		targets, src, tried := probeNvidiaSMI(ctx, o, timeout)
		r.tried = append(r.tried, tried)
		if len(targets) > 0 {
			return finish(CUDA, r, targets, src), nil
		}
	}
	return fromDefault(CUDA, r, o.Default, &ResolveError{backend: CUDA, variable: name, example: "86;90a"})
}

// probeNvidiaSMI runs nvidia-smi ($CUDA_HOME/bin, then PATH).
func probeNvidiaSMI(ctx context.Context, o Options, d time.Duration) (targets []string, source, tried string) {
	var dir string
	if h := o.getenv("CUDA_HOME"); h != "" {
		dir = h + "/bin"
	}
	path, ok := o.findTool("nvidia-smi", dir)
	if !ok {
		where := "PATH"
		if dir != "" {
			where = dir + " or PATH"
		}
		return nil, "", "nvidia-smi: not found in " + where
	}
	// The key is read before nvidia-smi runs: a GPU or driver change while
	// it runs leaves a key the next run does not match.
	var fingerprint string
	if o.Memo != "" {
		procDir := o.driverProc
		if procDir == "" {
			procDir = nvidiaProc
		}
		if fp, ok := nvidiaFingerprint(procDir, path); ok {
			if rows := recalledGPUs(o.Memo, fp); rows != nil {
				return rows, smiSource(rows) + ", kept for the same GPUs and driver", fmt.Sprintf("nvidia-smi (%s): %s, kept from an earlier run for the same GPUs and driver", path, strings.Join(rows, ","))
			}
			fingerprint = fp
		}
	}
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	res, err := proc.Run(cctx, proc.Cmd{Path: path, Args: []string{"--query-gpu=compute_cap", "--format=csv,noheader"}, Env: o.childEnv()})
	if res.TimedOut {
		return nil, "", fmt.Sprintf("nvidia-smi (%s): no answer within %s, process group killed (raise %s if it is just slow)", path, d, envProbeTimeout)
	}
	// Old drivers exit 2 and explain on stdout; parse before judging the exit.
	if _, perr := parseNvidiaSMI(append(append([]byte(nil), res.Stdout...), res.Stderr...)); errors.Is(perr, errNoComputeCap) {
		return nil, "", fmt.Sprintf("nvidia-smi (%s): %v", path, perr)
	}
	if err != nil {
		return nil, "", fmt.Sprintf("nvidia-smi (%s): %s", path, describeFailure(res, err))
	}
	archs, perr := parseNvidiaSMI(res.Stdout)
	if perr != nil {
		return nil, "", fmt.Sprintf("nvidia-smi (%s): %v", path, perr)
	}
	if len(archs) == 0 {
		return nil, "", fmt.Sprintf("nvidia-smi (%s): no GPU rows", path)
	}
	if fingerprint != "" {
		rememberGPUs(o.Memo, fingerprint, archs)
	}
	return archs, smiSource(archs), fmt.Sprintf("nvidia-smi (%s): %s", path, strings.Join(archs, ","))
}

// smiSource names nvidia-smi's rows as a Result's source.
func smiSource(archs []string) string {
	rows := make([]int, len(archs))
	for i := range rows {
		rows[i] = i
	}
	return "nvidia-smi rows " + numberList(rows)
}
