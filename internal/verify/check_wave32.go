package verify

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// Wave32 checks ROCm kernel sources for the wavefront size (check 5), by the
// reference's rule (lablup/mlxcel#1814, #2179). AMD GPUs run 32 lanes (RDNA,
// gfx10-12) or 64 (CDNA, gfx90a, gfx942), and a source is one of two kinds:
//
//   - A port that assumes 32 lanes says so with an #error guard on the
//     wavefront macro. Its guard must test both spellings clang has used,
//     `__AMDGCN_WAVEFRONT_SIZE__` and `__AMDGCN_WAVEFRONT_SIZE` (clang 15,
//     ROCm 5.x, defines only the latter), with #error (a #warning stops
//     nothing), and each shuffle passes an explicit width of 32.
//   - Code with no guard is written for any wave size. A shuffle without a
//     width uses the device's warpSize, which is right when the code is
//     written for the device's width: its lane loops run over WARP_SIZE
//     (the wavefront macro), warpSize or the macro itself, or stay inside a
//     32-lane block (offsets of 16 or less, read in the block's lanes). It is
//     wrong when the code is written for a width the device may not have: an
//     offset or loop start of 32 or more, which on a 32-lane wavefront reads
//     past the last lane. Where the code says nothing (an offset passed in),
//     the shuffle is not called wrong.
//
// Each file's code is one unit, and so is each string literal (or run of
// adjacent literals) that uses lanes: JIT kernel text, such as a raw string
// handed to hip_kernel, is compiled for the device at hand and follows the
// same rules, its guard inside the string. A literal whose name says it is
// another backend's source (FUSED_NORM_CUDA_SOURCE, *_METAL_SOURCE) is
// left out.
type Wave32 struct {
	// Root is the directory searched: the ROCm overlay, the tree, or any
	// directory of the repository (the engine's own kernels).
	Root string
	// Include lists globs of kernel sources; default: DefaultSourceGlobs.
	Include []string
	// Exclude lists globs to leave out.
	Exclude []string
}

// WavefrontMacros are the macro names a wave32 guard must test.
var WavefrontMacros = []string{"__AMDGCN_WAVEFRONT_SIZE__", "__AMDGCN_WAVEFRONT_SIZE"}

var (
	laneOpRE    = lazyregexp.New(`\b(__shfl\w*|__reduce\w*|__ballot\w*|__builtin_amdgcn_(?:ds_swizzle|ds_bpermute|ds_permute|readlane|readfirstlane|permlane\w*|mov_dpp\w*|update_dpp))\s*[(<]`)
	warpArithRE = lazyregexp.New(`\bwarpSize\s*(?:[-+*/%&|^]|<<|>>)|(?:[-+*/%&|^]|<<|>>)=?\s*warpSize\b`)
	directiveRE = lazyregexp.New(`^\s*#\s*(\w+)(.*)$`)
	// otherBackendRE is the name of a JIT source for another backend.
	otherBackendRE = lazyregexp.New(`(?i)cuda|metal`)
	laneCountRE    = lazyregexp.New(`\b(32|64)\b`)
	macroRE        = []*lazyregexp.Regexp{lazyregexp.New(`\b__AMDGCN_WAVEFRONT_SIZE__\b`), lazyregexp.New(`\b__AMDGCN_WAVEFRONT_SIZE\b`)}
	// shuffleArgs is the number of arguments of each HIP shuffle without
	// its optional last one, the width.
	shuffleArgs = map[string]int{
		"__shfl": 2, "__shfl_xor": 2, "__shfl_up": 2, "__shfl_down": 2,
		"__shfl_sync": 3, "__shfl_xor_sync": 3, "__shfl_up_sync": 3, "__shfl_down_sync": 3,
	}
)

// Name is the check's name in reports.
func (Wave32) Name() string { return "wave32" }

// Run checks every kernel source under Root.
func (c Wave32) Run(ctx context.Context) Result {
	files, bad := selectSources(c.Name(), c.Root, c.Include, c.Exclude)
	if bad != nil {
		return result(c.Name(), bad, "")
	}
	var fs []Finding
	var st wave32Stats
	for _, rel := range files {
		src, err := os.ReadFile(display(c.Root, rel))
		if err != nil {
			fs = append(fs, Finding{File: display(c.Root, rel), Message: fmt.Sprintf("cannot read: %v", err), Fix: "check permissions"})
			continue
		}
		ffs, s := checkWave32(display(c.Root, rel), src)
		st.add(s)
		if s.units > 0 {
			st.files++
		}
		fs = append(fs, ffs...)
	}
	return result(c.Name(), fs, fmt.Sprintf("%d of %s use lanes: %d guarded wave32, %d for any wave size, %d of these JIT kernels in strings",
		st.files, plural.Count(len(files), "file"), st.guarded, st.units-st.guarded, st.jit))
}

// wave32Stats counts the units that use lanes.
type wave32Stats struct{ files, units, guarded, jit int }

func (s *wave32Stats) add(o wave32Stats) {
	s.units += o.units
	s.guarded += o.guarded
	s.jit += o.jit
}

// checkWave32 checks a file's code and the kernels in its string literals.
func checkWave32(file string, src []byte) ([]Finding, wave32Stats) {
	var fs []Finding
	var st wave32Stats
	check := func(code []byte, jit bool) {
		ffs, uses, guarded := checkWave32Unit(file, code, jit)
		if uses {
			st.units++
			if guarded {
				st.guarded++
			}
			if jit {
				st.jit++
			}
		}
		fs = append(fs, ffs...)
	}
	check(blankCpp(src, true), false)
	for _, u := range hipLaneUnits(src) {
		check(blankCpp(u, true), true)
	}
	return fs, st
}

// hipLaneUnits are the string literals of src (runs of adjacent literals)
// that hold AMD kernel code using lanes, each with the file's offsets.
func hipLaneUnits(src []byte) [][]byte {
	keep := func(u []byte, start int) bool {
		// A CUDA or Metal kernel in the same file (a launcher with several
		// ports) is not compiled for an AMD wavefront.
		if otherBackendRE.MatchString(boundName(src, start)) {
			return false
		}
		return firstLaneUse(strings.Split(string(u), "\n")) > 0
	}
	mayUseLanes := func(contents []byte) bool { return laneOpRE.Match(contents) || warpArithRE.Match(contents) }
	return stringUnits(src, mayUseLanes, keep)
}

// checkWave32Unit checks one unit of code (comments and strings blanked):
// whether it uses lanes, whether a guard declares it wave32, and the
// findings: a guard missing one spelling, or a shuffle without a width in
// code written for any wave size.
func checkWave32Unit(file string, code []byte, jit bool) (fs []Finding, uses, guarded bool) {
	lines := strings.Split(string(code), "\n")
	useLine := firstLaneUse(lines)
	if useLine == 0 {
		return nil, false, false
	}
	what := "this file"
	if jit {
		what = "this JIT kernel"
	}
	macros, warned := guardedMacros(lines)
	starts := lineStarts(code)
	toks := tokenize(code)
	if len(macros) == 0 && warned > 0 {
		fs = append(fs, Finding{File: file, Line: warned,
			Message: fmt.Sprintf("%s guards its wavefront size with #warning, which lets a wave64 build through", what),
			Fix:     "make the guard #error, on both __AMDGCN_WAVEFRONT_SIZE__ and __AMDGCN_WAVEFRONT_SIZE"})
		for _, m := range WavefrontMacros {
			macros[m] = true // the guard's spellings are not the finding
		}
	}
	if len(macros) > 0 {
		for _, m := range WavefrontMacros {
			if !macros[m] {
				fs = append(fs, Finding{File: file, Line: guardLine(lines),
					Message: fmt.Sprintf("%s is guarded as wave32 but not on %s, so a compiler that defines only that spelling builds it for wave64", what, m),
					Fix:     fmt.Sprintf("add beside the guard: #if defined(%s) && %s != 32 / #error \"wave32 only\" / #endif", m, m)})
			}
		}
		forEachShuffle(toks, func(i int, name string, args [][2]int, base int) {
			width := ""
			if len(args) > base {
				width = joinToks(toks, args[base])
			}
			if width == "32" || width != "" && constValue(toks, width) == 32 {
				return
			}
			msg := fmt.Sprintf("%s without a width in %s, which is guarded as wave32: the reference's rule is an explicit width of 32", name, what)
			if width != "" {
				msg = fmt.Sprintf("%s passes width %s in %s, which is guarded as wave32: the reference's rule is an explicit width of 32", name, width, what)
			}
			fs = append(fs, Finding{File: file, Line: lineAt(starts, toks[i].off), Message: msg,
				Fix: fmt.Sprintf("pass 32 as the last argument: %s(..., 32)", name)})
		})
		return fs, true, true
	}
	loops := laneLoops(toks)
	forEachShuffle(toks, func(i int, name string, args [][2]int, base int) {
		if len(args) != base {
			return
		}
		written, why := writtenFor(toks, args[base-1], loops)
		if written < 32 { // deviceWidth, unknown, or inside a 32-lane block
			return
		}
		fs = append(fs, Finding{File: file, Line: lineAt(starts, toks[i].off),
			Message: fmt.Sprintf("%s without a width in %s, written for any wave size (no wave32 guard), but %s: the width defaults to the device's warpSize, 32 on RDNA, so lanes past the 32nd are read as the shuffle's own", name, what, why),
			Fix:     fmt.Sprintf("pass the width the code is written for as the last argument (%s(..., WARP_SIZE)), or guard the file as wave64-only with #error", name)})
	})
	return fs, true, false
}

// forEachShuffle calls f for each HIP shuffle call in toks with its
// arguments and the number it takes without the optional width.
func forEachShuffle(toks []token, f func(i int, name string, args [][2]int, base int)) {
	for i := 0; i+1 < len(toks); i++ {
		base, ok := shuffleArgs[toks[i].text]
		if !ok || toks[i+1].text != "(" || (i > 0 && (toks[i-1].text == "." || toks[i-1].text == "->" || isDeclarationLead(toks[i-1]))) {
			continue
		}
		end := matching(toks, i+1)
		if end < 0 {
			continue
		}
		if args := splitArgs(toks, i+1, end); len(args) >= base {
			f(i, toks[i].text, args, base)
		}
	}
}

// joinToks is the text of the tokens in [r[0], r[1]).
func joinToks(toks []token, r [2]int) string {
	var b strings.Builder
	for _, t := range toks[r[0]:r[1]] {
		b.WriteString(t.text)
	}
	return b.String()
}

// firstLaneUse returns the 1-based line of the first cross-lane operation
// or warpSize arithmetic outside directives, or 0.
func firstLaneUse(lines []string) int {
	for i, l := range lines {
		if directiveRE.MatchString(l) {
			continue
		}
		if laneOpRE.MatchString(l) || warpArithRE.MatchString(l) {
			return i + 1
		}
	}
	return 0
}

// guardLine is the line of the first #error, where a finding about the
// guard points.
func guardLine(lines []string) int {
	for i, l := range lines {
		if m := directiveRE.FindStringSubmatch(l); m != nil && m[1] == "error" {
			return i + 1
		}
	}
	return 1
}

// guardedMacros returns the wavefront macros tested by an #if or #elif whose
// own branch holds an #error, and the line of the first #warning in such a
// branch (0 when none), a guard that stops nothing.
func guardedMacros(lines []string) (map[string]bool, int) {
	warned := 0
	type cond struct{ macros []string }
	guarded := map[string]bool{}
	var stack []*cond // one entry per open #if; its current branch's condition
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		// Join continuation lines of a directive.
		for strings.HasSuffix(strings.TrimRight(l, " \t"), "\\") && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(strings.TrimRight(l, " \t"), "\\") + " " + lines[i]
		}
		m := directiveRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		switch m[1] {
		case "if", "ifdef", "ifndef":
			stack = append(stack, &cond{macros: macrosIn(m[1], m[2])})
		case "elif":
			if len(stack) > 0 {
				stack[len(stack)-1].macros = macrosIn(m[1], m[2])
			}
		case "else":
			if len(stack) > 0 {
				stack[len(stack)-1].macros = nil
			}
		case "endif":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		case "warning":
			for _, c := range stack {
				if len(c.macros) > 0 && warned == 0 {
					warned = i + 1
				}
			}
		case "error":
			// Any enclosing condition that tests a macro guards it: an
			// #ifdef around an #if ... != 32 counts as well as one line.
			for _, c := range stack {
				for _, mac := range c.macros {
					guarded[mac] = true
				}
			}
		}
	}
	return guarded, warned
}

// macrosIn returns the wavefront macros a condition compares with a lane
// count; a bare #ifdef does not say the size is wrong, so it counts only for
// an #error nested in a comparison (see guardedMacros).
func macrosIn(directive, expr string) []string {
	if directive != "if" && directive != "elif" {
		return nil
	}
	var out []string
	if !laneCountRE.MatchString(expr) {
		return nil
	}
	for i, mac := range WavefrontMacros {
		if macroRE[i].MatchString(expr) {
			out = append(out, mac)
		}
	}
	return out
}
