package records

import (
	"strings"
	"testing"
)

func TestParseUpstream(t *testing.T) {
	data := "# where the ROCm overlay comes from\n" +
		"source: https://github.com/example/mlx-rocm\r\n" +
		"branch: rocm\n\n" +
		"commit:   0123456789abcdef0123456789abcdef01234567  \n" +
		"not a field\n" +
		"branch: again\n"
	u, probs := ParseUpstream([]byte(data))
	if len(u.Fields) != 3 {
		t.Fatalf("fields = %+v, want source, branch, commit", u.Fields)
	}
	c, ok := u.Get("commit")
	if !ok || c.Value != "0123456789abcdef0123456789abcdef01234567" || c.Line != 5 {
		t.Errorf("commit = %+v, %v; want the trimmed SHA at line 5", c, ok)
	}
	if s, _ := u.Get("source"); s.Value != "https://github.com/example/mlx-rocm" {
		t.Errorf("source value %q keeps the \\r or loses the URL's colon", s.Value)
	}
	if len(probs) != 2 || probs[0].Line != 6 || probs[1].Line != 7 ||
		!strings.Contains(probs[1].Message, "first at line 3") {
		t.Errorf("problems = %v, want line 6 (not key: value) and line 7 (duplicate of line 3)", probs)
	}
}

const fixesDoc = "# Local fixes\n" +
	"\n" +
	"2. **Wave32 reductions.** Guard `mlx/backend/rocm/reduce.hip` and\n" +
	"   `mlx/backend/rocm/device/` against wave64.\n" +
	"   - **Status:** proposed https://github.com/ml-explore/mlx/pull/1234\n" +
	"   Calls `std::max(a, b)` and `has_kernel_port()`; see `CMakeLists.txt`.\n" +
	"\n" +
	"1. **Retarget to the pin.**\n" +
	"Status: retarget-only\n" +
	"```\n" +
	"3. **not an item, inside a fence** `ignored/path.cpp`\n" +
	"```\n" +
	"3. **Dtype in JIT keys.** Uses `mlx/backend/rocm/custom_kernel.cpp`.\n" +
	"Status: to be proposed\n" +
	"## Notes\n" +
	"`after/heading.cpp` belongs to no item.\n"

func TestParseLocalFixes(t *testing.T) {
	lf, probs := ParseLocalFixes([]byte(fixesDoc))
	if len(probs) != 0 {
		t.Fatalf("problems on a clean file: %v", probs)
	}
	if len(lf.Items) != 3 {
		t.Fatalf("items = %+v, want 3", lf.Items)
	}
	a, b, c := lf.Items[0], lf.Items[1], lf.Items[2]
	if a.Number != 2 || a.Title != "Wave32 reductions" || a.line != 3 || a.endLine != 7 {
		t.Errorf("first item = %+v", a)
	}
	wantPaths := []pathRef{{"mlx/backend/rocm/reduce.hip", 3}, {"mlx/backend/rocm/device/", 4}, {"CMakeLists.txt", 6}}
	if len(a.Paths) != len(wantPaths) {
		t.Fatalf("paths = %+v, want %+v", a.Paths, wantPaths)
	}
	for i := range wantPaths {
		if a.Paths[i] != wantPaths[i] {
			t.Errorf("path %d = %+v, want %+v", i, a.Paths[i], wantPaths[i])
		}
	}
	if a.Status != StatusProposed || a.Link != "https://github.com/ml-explore/mlx/pull/1234" || a.statusLine != 5 {
		t.Errorf("first item status = %v %q line %d", a.Status, a.Link, a.statusLine)
	}
	if b.Number != 1 || b.Status != StatusRetargetOnly || len(b.Paths) != 0 {
		t.Errorf("second item = %+v (the fenced block must add nothing)", b)
	}
	if c.Number != 3 || c.Status != StatusToBeProposed || c.line != 13 || c.endLine != 14 ||
		len(c.Paths) != 1 || c.Paths[0].Path != "mlx/backend/rocm/custom_kernel.cpp" {
		t.Errorf("third item = %+v (the heading ends it)", c)
	}
	if p := lf.Numbering(); len(p) != 0 {
		t.Errorf("numbering problems for 2,1,3: %v", p)
	}
}

func TestLocalFixesProblems(t *testing.T) {
	doc := "1. **One.**\nStatus: proposed\n" +
		"2. Two without bold\n" +
		"4. **Four.**\nStatus: shipped\nStatus: retarget-only\n" +
		"4. **Four again.**\n"
	lf, probs := ParseLocalFixes([]byte(doc))
	want := []struct {
		line int
		msg  string
	}{{2, "no link"}, {3, "not bold"}, {5, "unknown status"}}
	if len(probs) != len(want) {
		t.Fatalf("problems = %v, want %v", probs, want)
	}
	for i, w := range want {
		if probs[i].Line != w.line || !strings.Contains(probs[i].Message, w.msg) || probs[i].Fix == "" {
			t.Errorf("problem %d = %+v, want line %d containing %q and a fix", i, probs[i], w.line, w.msg)
		}
	}
	if lf.Items[1].Status != StatusRetargetOnly {
		t.Errorf("item 4 status = %v; the valid line after the bad one should count", lf.Items[1].Status)
	}
	num := lf.Numbering()
	var msgs []string
	for _, p := range num {
		msgs = append(msgs, p.String())
	}
	got := strings.Join(msgs, "|")
	if len(num) != 2 || !strings.Contains(got, "line 7: item 4 appears again") ||
		!strings.Contains(got, "line 4: gap in numbering: no items 2 to 3") {
		t.Errorf("numbering = %s", got)
	}
}

func TestIsPathLike(t *testing.T) {
	for s, want := range map[string]bool{
		"mlx/backend/rocm/x.hip": true, "CMakeLists.txt": true, "dir/": true,
		"foo()": false, "std::max": false, "v6.2": false, "-DMLX_X=ON": false,
		"https://x/y": false, "owner/repo#12": false, "warpSize": false,
	} {
		if got := isPathLike(s); got != want {
			t.Errorf("isPathLike(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestStatusTrailingPeriod accepts a Status line written as a sentence: one
// final period is dropped, from the value and from a proposed link, while a
// second period or a period inside the value is still an unknown status.
func TestStatusTrailingPeriod(t *testing.T) {
	doc := "1. **One.**\nStatus: to be proposed.\n" +
		"2. **Two.**\n- **Status:** retarget-only.\n" +
		"3. **Three.**\nStatus: proposed https://github.com/owner/repo/pull/12.\n" +
		"4. **Four.**\nStatus: to be proposed..\n" +
		"5. **Five.**\nStatus: retarget.only\n" +
		"6. **Six.**\nStatus: proposed.\n"
	lf, probs := ParseLocalFixes([]byte(doc))
	if len(lf.Items) != 6 {
		t.Fatalf("items = %d, want 6", len(lf.Items))
	}
	want := []struct {
		status Status
		line   int
		link   string
	}{
		{StatusToBeProposed, 2, ""},
		{StatusRetargetOnly, 4, ""},
		{StatusProposed, 6, "https://github.com/owner/repo/pull/12"},
	}
	for i, w := range want {
		it := lf.Items[i]
		if it.Status != w.status || it.statusLine != w.line || it.Link != w.link {
			t.Errorf("item %d: status %v line %d link %q, want %v line %d link %q",
				it.Number, it.Status, it.statusLine, it.Link, w.status, w.line, w.link)
		}
	}
	wantProbs := []struct {
		line int
		msg  string
	}{{8, `unknown status "to be proposed.."`}, {10, `unknown status "retarget.only"`}, {12, "no link"}}
	if len(probs) != len(wantProbs) {
		t.Fatalf("problems = %v, want %v", probs, wantProbs)
	}
	for i, w := range wantProbs {
		if probs[i].Line != w.line || !strings.Contains(probs[i].Message, w.msg) {
			t.Errorf("problem %d = %+v, want line %d containing %q", i, probs[i], w.line, w.msg)
		}
	}
}

// TestUpstreamFieldColumns: each field's Col is the 1-based byte column of
// its value, past indent, key, colon and blanks, so errors point at it.
func TestUpstreamFieldColumns(t *testing.T) {
	u, probs := ParseUpstream([]byte("# c\ncommit: abc\r\n  fork_upstream_merge_base:\t  def \nlicense:\n"))
	if len(probs) != 0 {
		t.Fatal(probs)
	}
	want := map[string][2]int{"commit": {2, 9}, "fork_upstream_merge_base": {3, 31}, "license": {4, 9}}
	for key, lc := range want {
		f, ok := u.Get(key)
		if !ok || f.Line != lc[0] || f.Col != lc[1] {
			t.Errorf("%s: line %d col %d (found %v), want %d:%d", key, f.Line, f.Col, ok, lc[0], lc[1])
		}
	}
}
