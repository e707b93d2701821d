package records

import (
	"strings"
	"testing"
)

// Seeds live in testdata/fuzz/<FuzzName>/ in the go test corpus format; the
// f.Add calls below keep the shapes of real files in the corpus too.

func FuzzParseUpstream(f *testing.F) {
	f.Add([]byte("source: https://github.com/a/b\nbranch: main\ncommit: 0123456789abcdef0123456789abcdef01234567\n"))
	f.Add([]byte("# c\r\n\r\nkey:\n:value\nk: v: w\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		u, probs := ParseUpstream(data)
		nlines := len(splitLines(data))
		seen := map[string]bool{}
		for _, fl := range u.Fields {
			if fl.Line < 1 || fl.Line > nlines {
				t.Fatalf("field %+v outside lines 1..%d", fl, nlines)
			}
			if seen[fl.Key] {
				t.Fatalf("key %q kept twice", fl.Key)
			}
			seen[fl.Key] = true
			if fl.Value != strings.TrimSpace(fl.Value) || !keyRE.MatchString(fl.Key) {
				t.Fatalf("field %+v not normalized", fl)
			}
		}
		for _, p := range probs {
			if p.Line < 1 || p.Line > nlines || p.Fix == "" {
				t.Fatalf("problem %+v: line outside 1..%d or no fix", p, nlines)
			}
		}
	})
}

func FuzzParseLocalFixes(f *testing.F) {
	f.Add([]byte(fixesDoc))
	f.Add([]byte("1. **A.**\nStatus: proposed https://x/y\n1. **A.**\n3. b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lf, probs := ParseLocalFixes(data)
		nlines := len(splitLines(data))
		prevEnd := 0
		for _, it := range lf.Items {
			if it.line <= prevEnd || it.endLine < it.line || it.endLine > nlines {
				t.Fatalf("item %+v overlaps the previous one (ended %d) or leaves lines 1..%d", it, prevEnd, nlines)
			}
			prevEnd = it.endLine
			for _, p := range it.Paths {
				if p.line < it.line || p.line > it.endLine || !isPathLike(p.Path) {
					t.Fatalf("path %+v outside item %d (lines %d..%d) or not path-like", p, it.Number, it.line, it.endLine)
				}
			}
			if (it.Status == StatusProposed) != (it.Link != "") {
				t.Fatalf("item %+v: a link goes with status proposed and only with it", it)
			}
			if (it.StatusFrom == sourceLine) != (it.statusLine != 0) {
				t.Fatalf("item %+v: status source and status line disagree", it)
			}
			if (it.Status == StatusUnknown) != (it.StatusFrom == sourceNone) {
				t.Fatalf("item %+v: a status without a source, or a source without a status", it)
			}
		}
		for _, p := range append(probs, lf.Numbering()...) {
			if p.Line < 0 || p.Line > nlines || p.Message == "" || p.Fix == "" {
				t.Fatalf("problem %+v outside lines 0..%d or without message and fix", p, nlines)
			}
		}
	})
}

func FuzzParseResidual(f *testing.F) {
	f.Add([]byte(residualDoc))
	f.Add([]byte("# pin: a\n# pin: b\nx\n--- a/p\n+++ b/p\n--- a/p\n+++ b/p\n# note q: r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, probs := ParseResidual(data)
		nlines := len(splitLines(data))
		for _, p := range probs {
			if p.Line < 1 || p.Line > nlines || p.Message == "" || p.Fix == "" {
				t.Fatalf("problem %+v: line outside 1..%d or no message and fix", p, nlines)
			}
		}
		prev := 0
		for _, p := range r.Patches {
			if p.line <= prev || p.line > nlines || !strings.HasPrefix(p.Text, "--- ") {
				t.Fatalf("patch %+v out of order, outside 1..%d or not starting at its header", p, nlines)
			}
			prev = p.line
		}
		for k, h := range r.Hashes {
			if !isHex64(h.Value) || h.Key != k || h.Line < 1 {
				t.Fatalf("hash %q = %+v", k, h)
			}
		}
		// What Render writes must read back with the same patches.
		again, _ := ParseResidual(r.Render())
		if len(again.Patches) != len(r.Patches) {
			t.Fatalf("render and parse: %d patches, had %d", len(again.Patches), len(r.Patches))
		}
	})
}

// FuzzDropped: Dropped never panics, and every path it returns is a
// backtick span of the input that looks like a path.
func FuzzDropped(f *testing.F) {
	f.Add([]byte("## Dropped from the vendored set\n\n- `mlx/backend/metal/custom_kernel.cpp` and `mlx/backend/cuda/custom_kernel.cpp` are not carried.\n"))
	f.Add([]byte("## Fixes\n1. **X.** `a.cpp`\n### Not carried\n`b.h`\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, p := range Dropped(data) {
			if !isPathLike(p) || !strings.Contains(string(data), p) {
				t.Fatalf("Dropped returned %q", p)
			}
		}
	})
}
