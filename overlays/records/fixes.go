package records

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// Status says where a local fix stands with upstream.
type Status int

// The statuses an item's `Status:` line can give.
const (
	StatusUnknown       Status = iota // no Status line
	StatusRetargetOnly                // `Status: retarget-only`
	StatusToBeProposed                // `Status: to be proposed`
	StatusProposed                    // `Status: proposed <URL>`
	StatusAppliesToFork               // prose "applies to the fork" without "to be proposed"
)

// statusSource says what gave an item its status.
type statusSource int

// Where a status comes from, strongest first: an explicit `Status:` line,
// the item's own prose ("Applies to the fork; to be proposed there."), or
// the section heading it sits under ("## Retarget onto the MLX pin").
const (
	sourceNone    statusSource = iota // no status
	sourceLine                        // a `Status:` line
	SourceProse                       // a sentence of the item
	SourceSection                     // the section heading
)

// String names the source for listings.
func (s statusSource) String() string {
	switch s {
	case sourceLine:
		return "Status line"
	case SourceProse:
		return "prose"
	case SourceSection:
		return "section"
	}
	return "none"
}

// String gives the status as it is written in LOCAL_FIXES.md.
func (s Status) String() string {
	switch s {
	case StatusRetargetOnly:
		return "retarget-only"
	case StatusToBeProposed:
		return "to be proposed"
	case StatusProposed:
		return "proposed"
	case StatusAppliesToFork:
		return "applies to the fork"
	}
	return "unknown"
}

// pathRef is an overlay path an item names, with the line that names it.
type pathRef struct {
	Path string // relative to the overlay root, slash-separated, as written
	line int
}

// Item is one numbered entry of LOCAL_FIXES.md.
type Item struct {
	Number     int
	Title      string // the bold title without its final period
	line       int    // line of the `N. **Title.**` heading
	endLine    int    // last line of the item's body
	Paths      []pathRef
	Status     Status
	StatusFrom statusSource
	statusLine int    // 0 when there is no Status line
	Link       string // the pull request for StatusProposed
	section    string // the heading the item sits under, without its #s; "" before any
}

// localFixes is a parsed LOCAL_FIXES.md, its items in file order.
type localFixes struct {
	Items []Item
}

var (
	itemRE      = lazyregexp.New(`^(\d+)\.\s+\*\*(.+?)\*\*`)
	looseItemRE = lazyregexp.New(`^\d+\.\s`)
	headingRE   = lazyregexp.New(`^#{1,6}(\s|$)`)
	statusRE    = lazyregexp.New(`(?i)^(?:[-*]\s+)?(?:\*\*)?status:(?:\*\*)?\s*(.*?)\s*$`)
	backtickRE  = lazyregexp.New("`([^`\\s]+)`")
	extRE       = lazyregexp.New(`\.[A-Za-z][A-Za-z0-9]{0,7}$`)
	urlRE       = lazyregexp.New(`^https?://\S+$`)
)

// ParseLocalFixes reads LOCAL_FIXES.md. It does not check the numbering;
// see Numbering.
func ParseLocalFixes(data []byte) (localFixes, []Problem) {
	var lf localFixes
	var probs []Problem
	var cur *Item
	var prose strings.Builder // the current item's text, for its prose status
	section := ""
	inFence := false
	finish := func(end int) {
		if cur != nil {
			cur.endLine = end
			if cur.StatusFrom == sourceNone {
				if p, ok := classify(cur, prose.String()); !ok {
					probs = append(probs, p)
				}
			}
			lf.Items = append(lf.Items, *cur)
			cur = nil
		}
		prose.Reset()
	}
	lines := splitLines(data)
	for i, line := range lines {
		n := i + 1
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
			inFence = !inFence
			continue
		}
		if inFence {
			continue
		}
		if headingRE.MatchString(line) {
			finish(n - 1)
			// The level-1 heading is the document's title ("Local fixes on
			// top of the fork"), not a section that says what its items are.
			section = ""
			if strings.HasPrefix(line, "##") {
				section = strings.TrimSpace(strings.TrimLeft(line, "#"))
			}
			continue
		}
		if m := itemRE.FindStringSubmatch(line); m != nil {
			finish(n - 1)
			num, err := strconv.Atoi(m[1])
			if err != nil || num < 1 {
				probs = append(probs, Problem{Line: n,
					Message: fmt.Sprintf("item number %q is not a positive number", clip(m[1])),
					Fix:     "number the items 1, 2, 3, ..."})
				num = 0
			}
			cur = &Item{Number: num, Title: strings.TrimSuffix(strings.TrimSpace(m[2]), "."), line: n, section: section}
			addPaths(cur, line[len(m[0]):], n)
			prose.WriteString(line[len(m[0]):])
			continue
		}
		if looseItemRE.MatchString(line) {
			probs = append(probs, Problem{Line: n,
				Message: fmt.Sprintf("%q looks like an item but its title is not bold", clip(line)),
				Fix:     "write the item as `N. **Title.**`, or indent it if it belongs to the item above"})
			continue
		}
		if cur == nil {
			continue
		}
		if m := statusRE.FindStringSubmatch(trimmed); m != nil {
			if p, ok := setStatus(cur, m[1], n); !ok {
				probs = append(probs, p)
			}
			continue
		}
		addPaths(cur, line, n)
		prose.WriteString("\n" + line)
	}
	finish(len(lines))
	return lf, probs
}

// setStatus records an item's status from the value of its Status line.
func setStatus(it *Item, value string, line int) (Problem, bool) {
	if it.statusLine != 0 {
		return Problem{Line: line,
			Message: fmt.Sprintf("item %d has a second Status line (first at line %d)", it.Number, it.statusLine),
			Fix:     "keep one Status line per item"}, false
	}
	// A sentence-style period ("Status: to be proposed.") is prose, not part
	// of the value; one is dropped, so a link keeps no trailing period either.
	fields := strings.Fields(strings.TrimSuffix(strings.TrimSpace(value), "."))
	lower := strings.ToLower(strings.Join(fields, " "))
	switch {
	case lower == "retarget-only":
		it.Status = StatusRetargetOnly
	case lower == "to be proposed":
		it.Status = StatusToBeProposed
	case len(fields) >= 1 && strings.ToLower(fields[0]) == "proposed":
		if len(fields) != 2 || !urlRE.MatchString(fields[1]) {
			return Problem{Line: line,
				Message: fmt.Sprintf("item %d is proposed but its Status line has no link", it.Number),
				Fix:     "write `Status: proposed https://github.com/owner/repo/pull/N`"}, false
		}
		it.Status = StatusProposed
		it.Link = fields[1]
	default:
		return Problem{Line: line,
			Message: fmt.Sprintf("item %d has an unknown status %q", it.Number, clip(value)),
			Fix:     "use `retarget-only`, `to be proposed` or `proposed <URL>`"}, false
	}
	it.statusLine = line
	it.StatusFrom = sourceLine
	return Problem{}, true
}

// addPaths appends the path-like backtick spans of text to the item.
func addPaths(it *Item, text string, line int) {
	for _, m := range backtickRE.FindAllStringSubmatch(text, -1) {
		p := m[1]
		if !isPathLike(p) {
			continue
		}
		dup := false
		for _, have := range it.Paths {
			if have.Path == p {
				dup = true
				break
			}
		}
		if !dup {
			it.Paths = append(it.Paths, pathRef{Path: p, line: line})
		}
	}
}

// isPathLike reports whether a backtick span names a file or directory
// rather than code: see the package documentation.
func isPathLike(s string) bool {
	if strings.ContainsAny(s, "()<>{}[];,=*\"'$#@") || strings.Contains(s, "::") ||
		strings.Contains(s, "://") || strings.HasPrefix(s, "-") {
		return false
	}
	return strings.Contains(s, "/") || extRE.MatchString(s)
}

// Numbering checks that the items are numbered 1..N, each exactly once, in
// any order, and returns a Problem for each number missing or repeated.
func (lf localFixes) Numbering() []Problem {
	var probs []Problem
	first := map[int]int{}
	max := 0
	for _, it := range lf.Items {
		if it.Number < 1 {
			continue // already reported by the parser
		}
		if at, dup := first[it.Number]; dup {
			probs = append(probs, Problem{Line: it.line,
				Message: fmt.Sprintf("item %d appears again (first at line %d)", it.Number, at),
				Fix:     "give each item its own number; renumber so items run 1..N"})
			continue
		}
		first[it.Number] = it.line
		if it.Number > max {
			max = it.Number
		}
	}
	nums := make([]int, 0, len(first))
	for n := range first {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	// Walk the gaps between consecutive numbers rather than 1..max, so a
	// stray huge number costs nothing. Each gap is reported once, at the item
	// that follows it, the likeliest place to look.
	prev := 0
	for _, n := range nums {
		if n > prev+1 {
			what := fmt.Sprintf("no item %d", prev+1)
			if n > prev+2 {
				what = fmt.Sprintf("no items %d to %d", prev+1, n-1)
			}
			probs = append(probs, Problem{Line: first[n],
				Message: fmt.Sprintf("gap in numbering: %s (items run up to %d)", what, max),
				Fix:     fmt.Sprintf("add item %d or renumber the items so they run 1..N", prev+1)})
		}
		prev = n
	}
	return probs
}
