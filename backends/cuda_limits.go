package backends

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hashicorp/go-version"

	"github.com/mlxbuild/mlxbuild/arch"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// cudaTargetRe splits an MLX_CUDA_ARCHITECTURES entry (CMake style) into
// its number, its suffix (a: this chip only, f: its family, CUDA 12.9+)
// and its kind (-real: machine code only, -virtual: PTX only).
var cudaTargetRe = lazyregexp.New(`^([1-9][0-9]{1,2})([af]?)(-real|-virtual)?$`)

// cudaKeywords are the entries CMake expands itself from the toolkit's
// own list, so they cannot name an architecture it lacks.
var cudaKeywords = map[string]bool{"native": true, "all": true, "all-major": true}

// cudaArchLists are what nvcc says it compiles: --list-gpu-code's sm_
// names (machine code) and --list-gpu-arch's compute_ names (PTX), each
// without its prefix ("75", "90a", "100f").
type cudaArchLists struct {
	code, arch map[string]bool
}

// parseGPUList reads nvcc --list-gpu-code or --list-gpu-arch: one name
// a line, prefix then a number with an optional a or f; anything else is
// skipped (a banner, a blank line).
func parseGPUList(out, prefix string) map[string]bool {
	names := map[string]bool{}
	for _, field := range strings.Fields(out) {
		rest, ok := strings.CutPrefix(field, prefix)
		if !ok {
			continue
		}
		if m := cudaTargetRe.FindStringSubmatch(rest); m != nil && m[3] == "" {
			names[rest] = true
		}
	}
	return names
}

// has says whether set holds base+suffix. An nvcc that lists no name
// with that suffix at all (one older than its lists' suffixed names)
// is taken at the number alone: nvcc itself judges the suffix then.
func has(set map[string]bool, base, suffix string) bool {
	if set[base+suffix] {
		return true
	}
	return suffix != "" && !listsSuffix(set, suffix) && set[base]
}

// listsSuffix reports whether some name of set ends in suffix.
func listsSuffix(set map[string]bool, suffix string) bool {
	for n := range set {
		if strings.HasSuffix(n, suffix) {
			return true
		}
	}
	return false
}

// compiles reports whether nvcc makes machine code for base+suffix. A
// plain number needs its sm_ name in --list-gpu-code. A suffixed one
// (121a, 120f) also passes when the number's sm_ name is listed and
// --list-gpu-arch has its compute_ form: nvcc makes sm_121a from
// compute_121a, and a toolkit's --list-gpu-code may show none of the
// suffixed names, or only some (a third party reports CUDA 13.0's shows
// sm_100 but never sm_100a or sm_100f). When neither list shows a name
// with the suffix, the number alone decides, as has does.
func (l *cudaArchLists) compiles(base, suffix string) bool {
	if l.code[base+suffix] {
		return true
	}
	if suffix == "" || !l.code[base] {
		return false
	}
	return l.arch[base+suffix] || (!listsSuffix(l.code, suffix) && !listsSuffix(l.arch, suffix))
}

// familyForms is the first CUDA whose nvcc takes the f (family) forms,
// which an older nvcc's lists may not show as missing. Made on first use:
// go-version's first parse compiles its expression, which every start of
// the binary paid for at initialization.
var familyForms = sync.OnceValue(func() *version.Version { return version.Must(version.NewVersion("12.9")) })

// gpuLists runs nvcc --list-gpu-code and --list-gpu-arch once for the
// life of c (the caller holds limitsMu).
func (c *cudaToolkit) gpuLists() (*cudaArchLists, error) {
	if c.lists != nil || c.listsErr != nil {
		return c.lists, c.listsErr
	}
	l := &cudaArchLists{}
	for _, q := range []struct {
		flag, prefix string
		into         *map[string]bool
	}{{"--list-gpu-code", "sm_", &l.code}, {"--list-gpu-arch", "compute_", &l.arch}} {
		ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
		res, err := proc.Run(ctx, proc.Cmd{Path: c.NVCC, Args: []string{q.flag}})
		cancel()
		if err != nil {
			c.listsErr = fmt.Errorf("%s %s: %v; set CUDA_HOME to a working CUDA toolkit", c.NVCC, q.flag, err)
			return nil, c.listsErr
		}
		*q.into = parseGPUList(string(res.Stdout), q.prefix)
		if len(*q.into) == 0 {
			c.listsErr = fmt.Errorf("%s %s listed no %s names; set CUDA_HOME to a working CUDA toolkit", c.NVCC, q.flag, q.prefix)
			return nil, c.listsErr
		}
	}
	c.lists = l
	return l, nil
}

// SupportsArch reports whether this toolkit compiles target, an
// MLX_CUDA_ARCHITECTURES entry (75, 90a, 100f, 121a-real, 89-virtual),
// against nvcc's own lists: CUDA 13 dropped sm_50 to sm_72, which CMake
// would otherwise take to nvcc an hour into the build. Plain NN needs
// both machine code and PTX, -real the first, -virtual the second. The
// error names the toolkit, what its list lacks and the nearest it has.
func (c *cudaToolkit) SupportsArch(target string) error {
	if cudaKeywords[target] {
		return nil
	}
	m := cudaTargetRe.FindStringSubmatch(target)
	if m == nil {
		return fail.Configf("%q is not a CUDA architecture (like 86, 90a, 100f or 121a-real): fix MLX_CUDA_ARCHITECTURES", target)
	}
	base, suffix, kind := m[1], m[2], m[3]
	c.limitsMu.Lock()
	l, err := c.gpuLists()
	c.limitsMu.Unlock()
	if err != nil {
		return err
	}
	var lacks string
	switch {
	case suffix == "f" && c.version != nil && c.version.LessThan(familyForms()):
		lacks = "the f (family) forms came with CUDA 12.9"
	case kind != "-virtual" && !l.compiles(base, suffix):
		lacks = "nvcc --list-gpu-code has no sm_" + base + suffix
		if suffix != "" {
			lacks += " and --list-gpu-arch no compute_" + base + suffix
		}
	case kind != "-real" && !has(l.arch, base, suffix):
		lacks = "nvcc --list-gpu-arch has no compute_" + base + suffix
	default:
		return nil
	}
	if chip, ok := arch.LookupCUDA(base); ok && chip.RenamedTo != "" {
		lacks += "; CUDA 13 calls this chip " + chip.RenamedTo + suffix + kind
	}
	return &UnsupportedArchError{
		target: target, toolchain: fmt.Sprintf("CUDA %s toolkit at %s", c.version, c.root), said: lacks,
		Nearby: nearestCUDA(l.code, base), Var: "MLX_CUDA_ARCHITECTURES", family: "CUDA", rootVar: "CUDA_HOME",
	}
}

// nearestCUDA are the two plain numbers of names nearest to base (lower
// first on a tie): what a user dropping a retired architecture moves to.
func nearestCUDA(names map[string]bool, base string) []string {
	want, _ := strconv.Atoi(base)
	var nums []int
	for n := range names {
		if v, err := strconv.Atoi(n); err == nil && v != want {
			nums = append(nums, v)
		}
	}
	dist := func(v int) int { return max(v-want, want-v) }
	slices.SortFunc(nums, func(a, b int) int {
		if d := dist(a) - dist(b); d != 0 {
			return d
		}
		return a - b
	})
	var out []string
	for _, v := range nums[:min(2, len(nums))] {
		out = append(out, strconv.Itoa(v))
	}
	return out
}

// CheckHostCompiler asks nvcc to compile an empty file with the host C++
// compiler the build's nvcc would use: the spec's CMAKE_CUDA_HOST_COMPILER,
// else CUDAHOSTCXX (which CMake takes), else nvcc's own default (the g++
// on PATH; CMake passes none then). nvcc refuses a g++ newer than its
// crt/host_config.h allows at once, where the build would fail deep in
// its first CUDA file. -allow-unsupported-compiler in CMAKE_CUDA_FLAGS or
// CUDAFLAGS turns nvcc's check off, and this one with it. Refusal is bad
// configuration (exit 2) naming CUDAHOSTCXX; the answer is kept for the
// life of c per compiler.
func (c *cudaToolkit) CheckHostCompiler(env func(string) string, defines map[string]string) error {
	if strings.Contains(defines["CMAKE_CUDA_FLAGS"]+" "+env("CUDAFLAGS"), "-allow-unsupported-compiler") {
		return nil
	}
	host, from := defines["CMAKE_CUDA_HOST_COMPILER"], "the define CMAKE_CUDA_HOST_COMPILER="
	if host == "" {
		host, from = env("CUDAHOSTCXX"), "CUDAHOSTCXX="
	}
	c.limitsMu.Lock()
	defer c.limitsMu.Unlock()
	key := from + host // the error says where the compiler came from
	if err, ok := c.hostChecked[key]; ok {
		return err
	}
	said, err := c.compileEmpty(host)
	if err == nil && said != "" {
		who := "nvcc's default host compiler (no CUDAHOSTCXX: the g++ on PATH)"
		if host != "" {
			who = "the host compiler " + from + host
		}
		err = fail.Configf("%s is refused by nvcc of the CUDA %s toolkit at %s (%s); set CUDAHOSTCXX to a g++ this nvcc supports, or add -allow-unsupported-compiler to CMAKE_CUDA_FLAGS (CUDAFLAGS, or a spec define) at your own risk",
			who, c.version, c.root, said)
	}
	if c.hostChecked == nil {
		c.hostChecked = map[string]error{}
	}
	c.hostChecked[key] = err
	return err
}

// compileEmpty runs nvcc -c on an empty .cu with host as -ccbin ("" for
// nvcc's default): said is nvcc's complaint when it refuses, err a
// failure to run it at all.
func (c *cudaToolkit) compileEmpty(host string) (said string, err error) {
	dir, err := os.MkdirTemp("", "mlxbuild-host-probe-")
	if err != nil {
		return "", fmt.Errorf("host compiler probe: %w", err)
	}
	defer os.RemoveAll(dir)
	src := filepath.Join(dir, "empty.cu")
	if err := os.WriteFile(src, nil, 0o644); err != nil {
		return "", fmt.Errorf("host compiler probe: %w", err)
	}
	args := []string{"-c", src, "-o", filepath.Join(dir, "empty.o")}
	if host != "" {
		args = append([]string{"-ccbin", host}, args...)
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	res, err := proc.Run(ctx, proc.Cmd{Path: c.NVCC, Args: args, Dir: dir})
	if err == nil {
		return "", nil
	}
	if said = nvccComplaint(string(res.Stderr) + string(res.Stdout)); said == "" {
		said = err.Error()
	}
	return said, nil
}

// nvccComplaint is nvcc's first error without its file position and
// "#error -- ", and without host_config.h's advice after the verdict
// (the refusal says the way out itself).
func nvccComplaint(out string) string {
	for _, l := range strings.Split(out, "\n") {
		i := strings.Index(l, "error")
		if i < 0 {
			continue
		}
		said := strings.TrimLeft(l[i+len("error"):], ": ")
		said = strings.TrimSpace(strings.TrimPrefix(said, "#error -- "))
		said, _, _ = strings.Cut(said, " The nvcc flag")
		return said
	}
	return firstLine(out)
}
