package arch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
	"github.com/mlxbuild/mlxbuild/internal/proc"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// ResolveROCm finds the gfx targets to build for: the variable (o.Var,
// default MLX_ROCM_ARCHITECTURES), else each probe in o.Probes' order
// (default: the GPU nodes of the KFD topology, then rocminfo's GPU agents),
// else o.Default with a warning. When nothing resolves it returns a
// *ResolveError; an invalid or unknown name in the variable or the default
// is a configuration error.
func ResolveROCm(ctx context.Context, o Options) (Result, error) {
	var r Result
	r.Warnings = rocmEnvWarnings(o)
	timeout, err := o.probeTimeout()
	if err != nil {
		return r, err
	}
	name := o.variable(envROCm)
	if v := o.getenv(name); strings.TrimSpace(v) != "" {
		targets, err := fromEnv(ROCm, name, v)
		if err != nil {
			return r, err
		}
		return finish(ROCm, r, targets, "env "+name), nil
	}
	r.tried = append(r.tried, "env "+name+": not set")

	for _, probe := range o.probes("kfd", "rocminfo") {
		var targets []string
		var src, tried string
		var warns []string
		switch probe {
		case "kfd":
			targets, src, tried, warns = probeKFD(o)
		case "rocminfo":
			// Without the kernel's KFD topology the ROCm runtime, and so
			// rocminfo, can list no GPU: skip its process start.
			if why, skip := rocminfoCannotSeeGPU(o); skip {
				tried = why
				break
			}
			targets, src, tried, warns = probeRocminfo(ctx, o, timeout)
		default:
			return r, fail.Configf("architectures.probes: %q does not find ROCm GPUs; use kfd or rocminfo", probe)
		}
		r.tried = append(r.tried, tried)
		r.Warnings = append(r.Warnings, warns...)
		if len(targets) > 0 {
			return finish(ROCm, r, targets, src), nil
		}
	}
	return fromDefault(ROCm, r, o.Default, &ResolveError{backend: ROCm, variable: name, example: "gfx1100;gfx1151"})
}

// fromEnv splits and validates a user's list.
func fromEnv(backend, name, v string) ([]string, error) {
	items := Split(v)
	if len(items) == 0 {
		// ";" or " , " is set but names nothing: an empty list would reach
		// CMake, which then builds for its own default (gfx803 here).
		return nil, &invalidEnvError{variable: name, value: v, why: "lists no architecture", fix: "set it to a list separated by ';', ',' or spaces, e.g. " + exampleFor(backend) + ", or unset it to detect the GPUs"}
	}
	for _, it := range items {
		if err := validateKnown(backend, it); err != nil {
			return nil, &invalidEnvError{variable: name, value: v, err: err, fix: "set it to a list separated by ';', ',' or spaces, e.g. " + exampleFor(backend)}
		}
		if cudaKeywords[it] && len(items) > 1 {
			return nil, &invalidEnvError{variable: name, value: v, why: fmt.Sprintf("CMake keyword %q must stand alone", it), fix: "use the keyword by itself or list the architectures"}
		}
	}
	return items, nil
}

func exampleFor(backend string) string {
	if backend == CUDA {
		return `"86;90a"`
	}
	return `"gfx1100;gfx1151"`
}

// fromDefault uses a spec's default list, noted for DefaultNote, or fails
// with none.
func fromDefault(backend string, r Result, def []string, none *ResolveError) (Result, error) {
	if len(def) > 0 {
		for _, d := range def {
			if err := validateKnown(backend, d); err != nil {
				return r, fail.AsConfig(fmt.Errorf("the spec's default %s architectures: %w; fix the spec's list", backend, err))
			}
		}
		r.defaulted.list, r.defaulted.variable = Join(def), none.variable
		return finish(backend, r, def, "spec default"), nil
	}
	r.tried = append(r.tried, "spec default: none")
	none.tried = r.tried
	none.Warnings = r.Warnings
	return r, none
}

// finish sorts, deduplicates and annotates the targets.
func finish(backend string, r Result, targets []string, source string) Result {
	if backend == CUDA {
		r.Targets = dedupe(targets, cudaLess)
	} else {
		r.Targets = dedupe(targets, func(a, b string) bool { return a < b })
		for _, t := range r.Targets {
			if _, ok := Lookup(t); !ok {
				r.Warnings = append(r.Warnings, fmt.Sprintf("%s is well-formed but not in mlxbuild's table of known targets (LLVM AMDGPUUsage); its wave size is unknown, check the name", t))
			}
		}
	}
	r.Source = source
	return r
}

// probeKFD reads the KFD topology: every node with a non-zero
// gfx_target_version is a GPU.
func probeKFD(o Options) (targets []string, source, tried string, warns []string) {
	dir := o.getenv(envKFD)
	if dir == "" {
		dir = kernelKFD
	}
	nodes, err := readKFD(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, "", fmt.Sprintf("kfd %s: does not exist (amdgpu driver not loaded, or no AMD GPU)", dir), nil
		}
		return nil, "", fmt.Sprintf("kfd %s: %v", dir, err), nil
	}
	var ids []int
	for _, n := range nodes {
		g := n.gfx()
		if g == "" {
			continue
		}
		if err := validate(ROCm, g); err != nil {
			warns = append(warns, fmt.Sprintf("kfd node %d: gfx_target_version %d decodes to %q, which is not a valid target; skipped", n.id, n.gfxTargetVersion, g))
			continue
		}
		targets = append(targets, g)
		ids = append(ids, n.id)
	}
	if len(targets) == 0 {
		return nil, "", fmt.Sprintf("kfd %s: %s, none a GPU", dir, plural.Count(len(nodes), "node")), warns
	}
	src := "kfd nodes " + numberList(ids)
	return targets, src, fmt.Sprintf("kfd %s: %s", dir, strings.Join(targets, ",")), warns
}

// kernelKFD is the topology the amdgpu driver publishes and ROCr reads; a
// variable so a test can point it at a directory it controls.
var kernelKFD = defaultKFDTopology

// rocminfoCannotSeeGPU reports when running rocminfo is pointless: it lists
// the agents ROCr enumerates, and ROCr builds its agents from the kernel's
// KFD topology (and /dev/kfd, which the same driver creates). Without that
// directory ROCr's hsa_init fails ("ROCk module is NOT loaded") and rocminfo
// can list no GPU, so skipping it is exact, and saves a process start on
// every build without a GPU. The check reads the directory on every
// run, never a cached answer, so a GPU that appears is seen at once. It
// applies only to the kernel's own path: with MLXBUILD_KFD_TOPOLOGY pointing
// elsewhere, what rocminfo sees is not what probeKFD read.
func rocminfoCannotSeeGPU(o Options) (string, bool) {
	if o.getenv(envKFD) != "" {
		return "", false
	}
	if _, err := os.Stat(kernelKFD); !errors.Is(err, fs.ErrNotExist) {
		return "", false
	}
	return fmt.Sprintf("rocminfo: not run: %s does not exist, so ROCr has no GPU to list", kernelKFD), true
}

// probeRocminfo runs rocminfo ($ROCM_PATH/bin, default /opt/rocm, then PATH)
// under the probe timeout and keeps its GPU agents.
func probeRocminfo(ctx context.Context, o Options, d time.Duration) (targets []string, source, tried string, warns []string) {
	root := o.getenv("ROCM_PATH")
	if root == "" {
		root = "/opt/rocm"
	}
	path, ok := o.findTool("rocminfo", root+"/bin")
	if !ok {
		return nil, "", fmt.Sprintf("rocminfo: not found in %s/bin or PATH", root), nil
	}
	cctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	res, err := proc.Run(cctx, proc.Cmd{Path: path, Env: o.childEnv()})
	if err != nil {
		if res.TimedOut {
			return nil, "", fmt.Sprintf("rocminfo (%s): no answer within %s, process group killed (raise %s if it is just slow)", path, d, envProbeTimeout), nil
		}
		return nil, "", fmt.Sprintf("rocminfo (%s): %s", path, describeFailure(res, err)), nil
	}
	agents := parseRocminfo(res.Stdout)
	var nums []int
	for _, a := range agents {
		if a.gpu() {
			targets = append(targets, a.name)
			nums = append(nums, a.number)
		}
	}
	if len(targets) == 0 {
		return nil, "", fmt.Sprintf("rocminfo (%s): %s, none a GPU", path, plural.Count(len(agents), "agent")), nil
	}
	return targets, "rocminfo agents " + numberList(nums), fmt.Sprintf("rocminfo (%s): %s", path, strings.Join(targets, ",")), nil
}

var ansiRe = lazyregexp.New("\x1b\\[[0-9;]*[A-Za-z]")

// describeFailure says how a probe failed in one line: the exit status and
// the first meaningful line of its output (rocminfo prints "ROCk module is
// NOT loaded" on stdout, in color).
func describeFailure(res proc.Result, err error) string {
	var ee *proc.ExitError
	if !errors.As(err, &ee) {
		return err.Error()
	}
	msg := firstLine(res.Stdout)
	if msg == "" {
		msg = firstLine(res.Stderr)
	}
	if msg == "" {
		return "exit status " + strconv.Itoa(res.ExitCode)
	}
	return fmt.Sprintf("exit status %d: %s", res.ExitCode, msg)
}

func firstLine(b []byte) string {
	for _, l := range strings.Split(ansiRe.ReplaceAllString(string(b), ""), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if len(l) > 200 {
				l = l[:200] + "..."
			}
			return l
		}
	}
	return ""
}

// rocmEnvWarnings explains variables that change what a probe sees.
func rocmEnvWarnings(o Options) []string {
	var w []string
	if v := o.getenv("HSA_OVERRIDE_GFX_VERSION"); v != "" {
		w = append(w, fmt.Sprintf("HSA_OVERRIDE_GFX_VERSION=%s is set: rocminfo and the HIP runtime report %s instead of the real processor, while KFD sysfs shows the real one; if the build is meant for the override, set %s=%s", v, overrideName(v), o.variable(envROCm), overrideName(v)))
	}
	for i := 0; i < 32; i++ {
		k := "HSA_OVERRIDE_GFX_VERSION_" + strconv.Itoa(i)
		if v := o.getenv(k); v != "" {
			w = append(w, fmt.Sprintf("%s=%s is set: rocminfo reports %s for that GPU, KFD sysfs the real processor", k, v, overrideName(v)))
		}
	}
	if v := o.getenv("ROCR_VISIBLE_DEVICES"); v != "" {
		w = append(w, fmt.Sprintf("ROCR_VISIBLE_DEVICES=%s is set: rocminfo lists only those GPUs, KFD sysfs lists all of them", v))
	}
	if v := o.getenv("HIP_VISIBLE_DEVICES"); v != "" {
		w = append(w, fmt.Sprintf("HIP_VISIBLE_DEVICES=%s is set: programs will use only those GPUs, but the probes see all of them", v))
	}
	return w
}

// overrideName turns an override such as "11.0.0" into "gfx1100".
func overrideName(v string) string {
	p := strings.Split(strings.TrimSpace(v), ".")
	if len(p) != 3 {
		return "an overridden target"
	}
	var n [3]uint64
	for i, s := range p {
		x, err := strconv.ParseUint(s, 10, 32)
		if err != nil {
			return "an overridden target"
		}
		n[i] = x
	}
	return fmt.Sprintf("gfx%d%x%x", n[0], n[1], n[2])
}
