package verify

import (
	"fmt"
	"path"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// The reference's rules 5 and 6 on the ROCm wavefront: a port table marked
// `.rocm_any_wave_size = true` is run on a 64-lane wavefront too, so the HIP
// kernel it launches must not work across lanes; and the test seam that
// replaces the wavefront width the tables are checked against,
// set_rocm_port_warp_size_for_tests, is called only from tests.
var (
	anyWaveMarkRE = lazyregexp.New(`\.\s*rocm_any_wave_size\s*=\s*true\b`)
	seamName      = "set_rocm_port_warp_size_for_tests"
	seamRE        = lazyregexp.New(`\b` + seamName + `\s*\(`)
)

// anyWavePorts applies rule 5 to one launcher: each any-wave table mark,
// when a HIP kernel of the file uses lanes, is a finding at the mark.
func anyWavePorts(file string, src, code []byte) []Finding {
	marks := anyWaveMarkRE.FindAllIndex(code, -1)
	if len(marks) == 0 {
		return nil
	}
	units := hipLaneUnits(src)
	if len(units) == 0 {
		return nil
	}
	starts := lineStarts(src)
	lane := firstLaneUse(strings.Split(string(blankCpp(units[0], true)), "\n"))
	var fs []Finding
	for _, m := range marks {
		fs = append(fs, Finding{File: file, Line: lineAt(starts, m[0]),
			Message: fmt.Sprintf("marks a port table any-wave (.rocm_any_wave_size = true), but the HIP kernel in this file works across lanes (line %d): on a 64-lane wavefront it runs with a width it was not written for", lane),
			Fix:     "drop the mark, so a wave64 device takes the fallback, or rewrite the kernel without shuffles, ballots or lane arithmetic"})
	}
	return fs
}

// seamCalls applies rule 6: outside tests (a Rust file under tests/ or
// test_support/, or a *_tests.rs module), a call of the seam is a finding;
// its definition and its bridge declaration are not calls.
func seamCalls(file, rel string, code []byte, rust bool) []Finding {
	if rust && (strings.HasPrefix(rel, "tests/") || strings.Contains(rel, "/tests/") || strings.Contains("/"+rel, "/test_support/") || strings.HasSuffix(path.Base(rel), "_tests.rs")) {
		return nil
	}
	starts := lineStarts(code)
	var fs []Finding
	for _, m := range seamRE.FindAllIndex(code, -1) {
		before := strings.Fields(string(code[max(0, m[0]-40):m[0]]))
		if len(before) > 0 && (before[len(before)-1] == "fn" || before[len(before)-1] == "void") {
			continue // its definition or declaration
		}
		where := "outside a test"
		if !rust {
			where = "outside its definition"
		}
		fs = append(fs, Finding{File: file, Line: lineAt(starts, m[0]),
			Message: fmt.Sprintf("calls %s %s: production code would check the port tables against a width the device does not have", seamName, where),
			Fix:     "call it only from a test (tests/, a *_tests.rs module or test_support/)"})
	}
	return fs
}
