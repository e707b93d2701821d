package arch

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/inputfile"
	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
	"github.com/mlxbuild/mlxbuild/internal/proc"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// Binary is what a built file was compiled for.
type Binary struct {
	File  string
	ROCm  []string // gfx target IDs of its HIP offload bundles, sorted, deduplicated
	SASS  []string // CUDA cubin architectures, CMake style ("86", "90a")
	PTX   []string // CUDA PTX architectures, CMake style
	Notes []string // what could not be read, and why
}

// inspect lists the GPU targets inside a binary, object or library: the gfx
// names of its HIP offload bundles, and (when cuobjdump is found in
// $CUDA_HOME/bin or PATH) the sm_ names of its CUDA fat binaries.
func inspect(ctx context.Context, file string, o Options) (Binary, error) {
	b := Binary{File: file}
	data, err := (inputfile.File{Path: file, What: "file to check", Limit: inputfile.BinaryLimit,
		Fix: "give arch:check a regular file: the library, object or program built"}).Read(ctx)
	if err != nil {
		return b, err
	}
	b.ROCm, b.Notes = rocmTargets(data)
	if containsCUDA(data) {
		if err := inspectCUDA(ctx, file, o, &b); err != nil {
			b.Notes = append(b.Notes, err.Error())
		}
	}
	return b, nil
}

// rocmTargets lists the gfx targets of the offload bundles in data, sorted
// and deduplicated, with notes on what could not be read.
func rocmTargets(data []byte) (gfx, notes []string) {
	entries, compressed := parseOffloadBundles(data)
	for _, e := range entries {
		if t := e.target(); t != "" {
			if validate(ROCm, t) == nil {
				gfx = append(gfx, t)
			} else {
				notes = append(notes, fmt.Sprintf("offload bundle entry %q is not a target mlxbuild knows how to read", e.triple))
			}
		}
	}
	if compressed > 0 {
		notes = append(notes, fmt.Sprintf("%s (--offload-compress): their targets are not listed", plural.Count(compressed, "compressed offload bundle")))
	}
	return dedupe(gfx, func(x, y string) bool { return x < y }), notes
}

func containsCUDA(data []byte) bool {
	return bytes.Contains(data, []byte(".nv_fatbin")) || bytes.Contains(data, cudaFatbinMagic)
}

var smRe = lazyregexp.New(`\.sm_([0-9]+[af]?)\.(cubin|ptx)\b`)

// inspectCUDA asks cuobjdump for the cubins and PTX inside file.
func inspectCUDA(ctx context.Context, file string, o Options, b *Binary) error {
	var dir string
	if h := o.getenv("CUDA_HOME"); h != "" {
		dir = h + "/bin"
	}
	path, ok := o.findTool("cuobjdump", dir)
	if !ok {
		return fmt.Errorf("the file holds a CUDA fat binary, but cuobjdump was not found in $CUDA_HOME/bin or PATH: its sm_ targets are not listed")
	}
	d, err := o.probeTimeout()
	if err != nil {
		return err
	}
	var sass, ptx []string
	for _, flag := range []string{"--list-elf", "--list-ptx"} {
		cctx, cancel := context.WithTimeout(ctx, d)
		res, err := proc.Run(cctx, proc.Cmd{Path: path, Args: []string{flag, file}, Env: o.childEnv()})
		cancel()
		if err != nil {
			// cuobjdump exits non-zero when a file has no PTX (or no ELF).
			if strings.Contains(string(res.Stderr), "does not contain") {
				continue
			}
			return fmt.Errorf("cuobjdump %s %s: %s", flag, file, describeFailure(res, err))
		}
		for _, m := range smRe.FindAllStringSubmatch(string(res.Stdout), -1) {
			if m[2] == "cubin" {
				sass = append(sass, m[1])
			} else {
				ptx = append(ptx, m[1])
			}
		}
	}
	b.SASS = dedupe(sass, cudaLess)
	b.PTX = dedupe(ptx, cudaLess)
	return nil
}

// checkReport compares a binary with the GPUs it is meant to run on.
type checkReport struct {
	Binary  Binary
	ROCm    *Result  // this machine's resolved ROCm targets, when the binary has HIP code
	CUDA    *Result  // this machine's resolved CUDA architectures, when it has CUDA code
	missing []string // machine GPUs no code in the binary runs on
	Lines   []string // the human summary, one line each
}

// mismatchError is a binary that has no code for some of the machine's GPUs:
// it would fail with hipErrorNoBinaryForGpu or "invalid device function".
type mismatchError struct{ report checkReport }

func (e *mismatchError) Error() string { return strings.Join(e.report.Lines, "\n") }

// Check inspects file and compares its GPU targets with this machine's, as
// ResolveROCm and ResolveCUDA find them (MLX_ROCM_ARCHITECTURES and
// MLX_CUDA_ARCHITECTURES included, so a user can also ask "was this built
// for what I asked for?"). It returns a *mismatchError when a GPU has no
// code in the file, an error when the file has no GPU code or the machine's
// GPUs cannot be resolved, and the report otherwise.
func Check(ctx context.Context, file string, o Options) (checkReport, error) {
	var rep checkReport
	bin, err := inspect(ctx, file, o)
	rep.Binary = bin
	if err != nil {
		return rep, err
	}
	if len(bin.ROCm) == 0 && len(bin.SASS) == 0 && len(bin.PTX) == 0 {
		why := "found no HIP offload bundle and no CUDA fat binary"
		if len(bin.Notes) > 0 {
			why += " it could read (" + strings.Join(bin.Notes, "; ") + ")"
		}
		return rep, fmt.Errorf("%s: %s; check that this is the GPU library or program (for a static build, the file that holds the kernels)", file, why)
	}
	return compare(ctx, bin, o)
}

// CheckBuilt is Check for a list of targets recorded at build time (a
// bundle's manifest) instead of a file read: what, which names them, is
// said in the report. built is as CMake took it: gfx names for rocm; for
// cuda "90a" (a cubin and its PTX), "90-real" (cubin) or "90-virtual"
// (PTX). It needs no toolchain (cuobjdump) on the machine.
func CheckBuilt(ctx context.Context, what, backend string, built []string, o Options) (checkReport, error) {
	bin := Binary{File: what}
	for _, t := range built {
		if backend == "rocm" {
			bin.ROCm = append(bin.ROCm, t)
			continue
		}
		switch base, kind, _ := strings.Cut(t, "-"); kind {
		case "real":
			bin.SASS = append(bin.SASS, base)
		case "virtual":
			bin.PTX = append(bin.PTX, base)
		default:
			bin.SASS, bin.PTX = append(bin.SASS, base), append(bin.PTX, base)
		}
	}
	if len(bin.ROCm)+len(bin.SASS)+len(bin.PTX) == 0 {
		return checkReport{Binary: bin}, nil
	}
	return compare(ctx, bin, o)
}

// compare resolves this machine's GPUs and says which have no code in bin.
func compare(ctx context.Context, bin Binary, o Options) (checkReport, error) {
	rep := checkReport{Binary: bin}
	file := bin.File
	mismatch := false
	if len(bin.ROCm) > 0 {
		r, err := ResolveROCm(ctx, o)
		if err != nil {
			return rep, fmt.Errorf("%s is built for %s, but this machine's GPUs could not be resolved to compare: %w", file, Join(bin.ROCm), err)
		}
		rep.ROCm = &r
		var missing []string
		for _, g := range r.Targets {
			if !anyRuns(bin.ROCm, g) {
				missing = append(missing, g)
			}
		}
		rep.missing = append(rep.missing, missing...)
		if len(missing) > 0 {
			mismatch = true
			rep.Lines = append(rep.Lines, fmt.Sprintf("built for %s, %s: no code for %s (it would fail with hipErrorNoBinaryForGpu); rebuild with %s=%s",
				Join(bin.ROCm), against(r, o.variable(envROCm)), Join(missing), o.variable(envROCm), Join(r.Targets)))
		} else {
			rep.Lines = append(rep.Lines, fmt.Sprintf("built for %s, %s: every GPU has code", Join(bin.ROCm), against(r, o.variable(envROCm))))
		}
	}
	if len(bin.SASS) > 0 || len(bin.PTX) > 0 {
		r, err := ResolveCUDA(ctx, o)
		if err != nil {
			return rep, fmt.Errorf("%s is built for CUDA %s, but this machine's GPUs could not be resolved to compare: %w", file, cudaBuiltList(bin), err)
		}
		rep.CUDA = &r
		var missing []string
		for _, m := range r.Targets {
			if !cudaRunsAny(bin, m) {
				missing = append(missing, m)
			}
		}
		rep.missing = append(rep.missing, missing...)
		if len(missing) > 0 {
			mismatch = true
			rep.Lines = append(rep.Lines, fmt.Sprintf("built for CUDA %s, %s: no code for %s (it would fail with \"invalid device function\"); rebuild with %s=%s",
				cudaBuiltList(bin), against(r, o.variable(EnvCUDA)), Join(missing), o.variable(EnvCUDA), Join(r.Targets)))
		} else {
			rep.Lines = append(rep.Lines, fmt.Sprintf("built for CUDA %s, %s: every GPU has code", cudaBuiltList(bin), against(r, o.variable(EnvCUDA))))
		}
	}
	if mismatch {
		return rep, &mismatchError{report: rep}
	}
	return rep, nil
}

// against says whose list the binary is compared with, e.g.
// "this machine has gfx1151 (kfd nodes 1)".
func against(r Result, envVar string) string {
	switch r.Source {
	case "env " + envVar:
		return fmt.Sprintf("the requested targets are %s (%s)", Join(r.Targets), envVar)
	case "spec default":
		return fmt.Sprintf("the spec's default list is %s", Join(r.Targets))
	default:
		return fmt.Sprintf("this machine has %s (%s)", Join(r.Targets), r.Source)
	}
}

func anyRuns(built []string, gpu string) bool {
	for _, t := range built {
		if runs(t, gpu) {
			return true
		}
	}
	return false
}

func cudaBuiltList(b Binary) string {
	var parts []string
	for _, s := range b.SASS {
		parts = append(parts, "sm_"+s)
	}
	for _, p := range b.PTX {
		parts = append(parts, "compute_"+p+" (PTX)")
	}
	return strings.Join(parts, ";")
}

// cudaRunsAny reports whether some code in b runs on the machine
// architecture m (CMake style, e.g. "90a" for an SM 9.0 GPU, or a keyword).
// A cubin runs on the same major version with an equal or higher minor;
// an architecture-specific one (sm_90a) only on its own SM. PTX is compiled
// at load time for any equal or newer SM (not across "a" variants).
func cudaRunsAny(b Binary, m string) bool {
	if cudaKeywords[m] {
		return true // the user asked CMake to decide; nothing to compare
	}
	ms := leadingInt(m)
	for _, s := range b.SASS {
		// "f" (family) cubins run across the family like plain ones.
		sm, specific := leadingInt(s), strings.HasSuffix(s, "a")
		if specific && sm == ms {
			return true
		}
		if !specific && sm/10 == ms/10 && sm <= ms {
			return true
		}
	}
	for _, p := range b.PTX {
		sm, specific := leadingInt(p), strings.HasSuffix(p, "a")
		if (specific && sm == ms) || (!specific && sm <= ms) {
			return true
		}
	}
	return false
}
