package verify

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"
)

// Wave32 checks ROCm kernel sources (check 5): a file that shuffles or
// reduces across lanes (`__shfl*`, `__reduce*`, or arithmetic on
// `warpSize`) bakes in a wavefront of 32 lanes, so it must refuse to compile
// for any other size with an `#error` guard on both macros clang has used
// for it: `__AMDGCN_WAVEFRONT_SIZE__` and the older spelling
// `__AMDGCN_WAVEFRONT_SIZE` (clang 15, ROCm 5.x, defines only the latter).
//
// Code in comments and string literals (JIT kernel text compiled at run
// time for the device at hand) does not count.
type Wave32 struct {
	// Root is the directory searched: the ROCm overlay, or the tree.
	Root string
	// Include lists globs of kernel sources; default: DefaultSourceGlobs.
	Include []string
	// Exclude lists globs to leave out.
	Exclude []string
}

// WavefrontMacros are the macro names a wave32 guard must test.
var WavefrontMacros = []string{"__AMDGCN_WAVEFRONT_SIZE__", "__AMDGCN_WAVEFRONT_SIZE"}

var (
	laneOpRE    = regexp.MustCompile(`\b(__shfl\w*|__reduce\w*)\s*[(<]`)
	warpArithRE = regexp.MustCompile(`\bwarpSize\s*(?:[-+*/%&|^]|<<|>>)|(?:[-+*/%&|^]|<<|>>)=?\s*warpSize\b`)
	directiveRE = regexp.MustCompile(`^\s*#\s*(\w+)(.*)$`)
	laneCountRE = regexp.MustCompile(`\b(32|64)\b`)
	macroRE     = []*regexp.Regexp{regexp.MustCompile(`\b__AMDGCN_WAVEFRONT_SIZE__\b`), regexp.MustCompile(`\b__AMDGCN_WAVEFRONT_SIZE\b`)}
)

// Name is the check's name in reports.
func (Wave32) Name() string { return "wave32" }

// Run checks every kernel source under Root.
func (c Wave32) Run(ctx context.Context) Result {
	include := c.Include
	if len(include) == 0 {
		include = DefaultSourceGlobs
	}
	files, err := selectFiles(c.Root, include, c.Exclude)
	if err != nil {
		return result(c.Name(), []Finding{{File: c.Root, Message: fmt.Sprintf("cannot search: %v", err), Fix: "check the root: of the wave32 check"}}, "")
	}
	var fs []Finding
	users := 0
	for _, rel := range files {
		src, err := os.ReadFile(display(c.Root, rel))
		if err != nil {
			fs = append(fs, Finding{File: display(c.Root, rel), Message: fmt.Sprintf("cannot read: %v", err), Fix: "check permissions"})
			continue
		}
		ffs, uses := checkWave32(display(c.Root, rel), src)
		if uses {
			users++
		}
		fs = append(fs, ffs...)
	}
	return result(c.Name(), fs, fmt.Sprintf("%d of %d files use lanes", users, len(files)))
}

// checkWave32 returns a finding per guard macro missing from a file that
// uses cross-lane operations, and whether it uses them.
func checkWave32(file string, src []byte) ([]Finding, bool) {
	code := blankCpp(src, true)
	lines := strings.Split(string(code), "\n")
	useLine, use := 0, ""
	for i, l := range lines {
		if directiveRE.MatchString(l) {
			continue
		}
		if m := laneOpRE.FindStringSubmatch(l); m != nil {
			useLine, use = i+1, m[1]
		} else if m := warpArithRE.FindString(l); m != "" {
			useLine, use = i+1, "warpSize arithmetic"
		}
		if useLine != 0 {
			break
		}
	}
	if useLine == 0 {
		return nil, false
	}
	guarded := guardedMacros(lines)
	var fs []Finding
	for _, m := range WavefrontMacros {
		if !guarded[m] {
			fs = append(fs, Finding{File: file, Line: useLine,
				Message: fmt.Sprintf("%s assumes 32 lanes but the file has no #error guard on %s", use, m),
				Fix:     fmt.Sprintf("add near the top: #if defined(%s) && %s != 32 / #error \"wave32 only\" / #endif", m, m)})
		}
	}
	return fs, true
}

// guardedMacros returns the wavefront macros tested by an #if or #elif whose
// own branch holds an #error.
func guardedMacros(lines []string) map[string]bool {
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
	return guarded
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
