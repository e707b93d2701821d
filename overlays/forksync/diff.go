package forksync

import (
	"fmt"
	"strconv"
	"strings"
)

// hunk is one hunk of a unified diff.
type hunk struct {
	oldStart, oldLines int
	newStart, newLines int
	// lines are the hunk's lines with their markers: " " context, "-"
	// removed, "+" added.
	lines []string
}

// header is the hunk's @@ line.
func (h hunk) header() string {
	return fmt.Sprintf("@@ -%d,%d +%d,%d @@", h.oldStart, h.oldLines, h.newStart, h.newLines)
}

// fileDiff is one file's part of a unified diff.
type fileDiff struct {
	path    string
	added   bool // the file is new on the new side
	deleted bool // the file is gone on the new side
	binary  bool
	hunks   []hunk
}

// parseDiff reads `git diff --no-renames` output.
func parseDiff(out string) ([]fileDiff, error) {
	var files []fileDiff
	var cur *fileDiff
	var h *hunk
	flush := func() {
		if h != nil && cur != nil {
			cur.hunks = append(cur.hunks, *h)
		}
		h = nil
	}
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "diff --git "):
			flush()
			if cur != nil {
				files = append(files, *cur)
			}
			// The +++/--- lines below give the path again, but a binary
			// file or a mode change has none.
			cur = &fileDiff{path: headerPath(strings.TrimPrefix(line, "diff --git "))}
		case cur == nil:
		case strings.HasPrefix(line, "@@ "):
			flush()
			nh, err := parseHunkHeader(line)
			if err != nil {
				return nil, err
			}
			h = &nh
		case h != nil && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "-") || strings.HasPrefix(line, "+")):
			h.lines = append(h.lines, line)
		case h != nil && strings.HasPrefix(line, `\`):
			// "\ No newline at end of file"
		case strings.HasPrefix(line, "new file mode"):
			cur.added = true
		case strings.HasPrefix(line, "deleted file mode"):
			cur.deleted = true
		case strings.HasPrefix(line, "Binary files"):
			cur.binary = true
		case strings.HasPrefix(line, "+++ "):
			if p, ok := sidePath(strings.TrimPrefix(line, "+++ "), "b/"); ok {
				cur.path = p
			}
		case strings.HasPrefix(line, "--- ") && cur.deleted:
			if p, ok := sidePath(strings.TrimPrefix(line, "--- "), "a/"); ok {
				cur.path = p
			}
		}
	}
	flush()
	if cur != nil {
		files = append(files, *cur)
	}
	return files, nil
}

// headerPath is P of "a/P b/P" (the two are the same without renames, so
// the length tells where P ends even when it has spaces), or of
// `"a/P" "b/P"`, git's C-quoted form for names with unusual bytes.
func headerPath(rest string) string {
	if strings.HasPrefix(rest, `"`) {
		if q, _, ok := cutQuoted(rest); ok {
			return strings.TrimPrefix(q, "a/")
		}
	}
	if n := len(rest) - len("a/ b/"); n > 0 && n%2 == 0 {
		p := rest[2 : 2+n/2]
		if rest == "a/"+p+" b/"+p {
			return p
		}
	}
	if i := strings.Index(rest, " b/"); i >= 0 {
		return rest[i+3:]
	}
	return rest
}

// sidePath reads the path of a ---/+++ line (after the marker): C-quoted
// or plain, with the tab git appends to a name with a space removed, and
// without its a/ or b/ prefix. /dev/null is no path.
func sidePath(s, prefix string) (string, bool) {
	if strings.HasPrefix(s, `"`) {
		q, _, ok := cutQuoted(s)
		if !ok || !strings.HasPrefix(q, prefix) {
			return "", false
		}
		return q[len(prefix):], true
	}
	s = strings.TrimSuffix(s, "\t")
	if !strings.HasPrefix(s, prefix) {
		return "", false
	}
	return s[len(prefix):], true
}

// cutQuoted unquotes the C-style quoted string (git's quote_c_style: \a \b
// \t \n \v \f \r \" \\ and \ooo octal bytes) at the start of s and
// returns it and what follows.
func cutQuoted(s string) (string, string, bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			q, err := strconv.Unquote(s[:i+1])
			if err != nil {
				return "", "", false
			}
			return q, s[i+1:], true
		}
	}
	return "", "", false
}

func parseHunkHeader(line string) (hunk, error) {
	var h hunk
	f := strings.Fields(line)
	if len(f) < 4 || f[0] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return h, fmt.Errorf("forksync: unexpected hunk header %q", line)
	}
	var err1, err2 error
	h.oldStart, h.oldLines, err1 = parseRange(f[1][1:])
	h.newStart, h.newLines, err2 = parseRange(f[2][1:])
	if err1 != nil || err2 != nil {
		return h, fmt.Errorf("forksync: unexpected hunk header %q", line)
	}
	return h, nil
}

func parseRange(s string) (start, n int, err error) {
	a, b, ok := strings.Cut(s, ",")
	if start, err = strconv.Atoi(a); err != nil {
		return
	}
	n = 1
	if ok {
		n, err = strconv.Atoi(b)
	}
	return
}

// block is one change inside a hunk: a run of removed lines and the added
// lines that replace them, with the context line on each side (when any).
type block struct {
	before, after string // context; "" with hasBefore/hasAfter false at an edge
	hasBefore     bool
	hasAfter      bool
	removed       []string
	added         []string
}

func (h hunk) blocks() []block {
	var out []block
	var cur *block
	lastCtx, haveCtx := "", false
	for _, l := range h.lines {
		text := l[1:]
		switch l[0] {
		case ' ':
			if cur != nil {
				cur.after, cur.hasAfter = text, true
				out = append(out, *cur)
				cur = nil
			}
			lastCtx, haveCtx = text, true
		case '-', '+':
			if cur == nil {
				cur = &block{before: lastCtx, hasBefore: haveCtx}
			}
			if l[0] == '-' {
				cur.removed = append(cur.removed, text)
			} else {
				cur.added = append(cur.added, text)
			}
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	return out
}

// containedIn reports whether the overlay (its lines) already has this
// upstream change. An addition or replacement is there when the new lines
// appear with their context, or appear on their own while the old lines
// with their context are gone; a pure removal is there when the old lines
// with their context are gone. It errs toward "not contained": a change
// reported twice costs a look, one missed ships the revert.
func (b block) containedIn(overlay []string) bool {
	oldSeq := b.withContext(b.removed)
	if len(b.added) == 0 {
		return !hasSeq(overlay, oldSeq)
	}
	if hasSeq(overlay, b.withContext(b.added)) {
		return true
	}
	return hasSeq(overlay, b.added) && (len(b.removed) == 0 || !hasSeq(overlay, oldSeq))
}

func (b block) withContext(mid []string) []string {
	var s []string
	if b.hasBefore {
		s = append(s, b.before)
	}
	s = append(s, mid...)
	if b.hasAfter {
		s = append(s, b.after)
	}
	return s
}

// hasSeq reports whether seq occurs in lines as a contiguous run, comparing
// lines without trailing white space.
func hasSeq(lines, seq []string) bool {
	if len(seq) == 0 {
		return true
	}
	for i := 0; i+len(seq) <= len(lines); i++ {
		ok := true
		for j := range seq {
			if trimEnd(lines[i+j]) != trimEnd(seq[j]) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func trimEnd(s string) string { return strings.TrimRight(s, " \t\r") }

// splitText splits a file into lines without terminators.
func splitText(data []byte) []string {
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
