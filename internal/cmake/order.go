package cmake

import (
	"bytes"
	"slices"
	"strings"
	"time"
)

// OrderedManifest is the name of the copy of build.ninja whose build
// statements are ordered longest chain first (see orderManifest).
const OrderedManifest = "mlxbuild-order.ninja"

// Ninja starts ready edges in the order of their ids, which are the order
// of the build statements in the manifest: 1.11 keeps its ready edges in a
// set ordered by id (graph.h, EdgeCmp); 1.12 and 1.13 in a priority queue
// by the edge's depth in the graph (every edge weighs 1, whatever it took
// in .ninja_log: EdgeWeightHeuristic), then by id (EdgePriorityLess). The
// order of the targets on the command line, and durations seeded into
// .ninja_log, change nothing of that. So the one lever that works with
// both, without changing what is built, is the order of the statements.

// manifestItem is one top-level statement of a manifest, raw: its first
// line, its continuations and its indented lines.
type manifestItem struct {
	raw   []byte
	build bool // a build statement: moving it among others changes nothing but its id
	outs  []string
	ins   []string // explicit, implicit and order-only inputs
	phony bool
}

// splitManifest cuts a manifest into its top-level statements, keeping
// every byte.
func splitManifest(data []byte) []manifestItem {
	var items []manifestItem
	start := 0
	for start < len(data) {
		end := start
		for {
			// end of this physical line, past "$"+newline continuations
			nl := bytes.IndexByte(data[end:], '\n')
			if nl < 0 {
				end = len(data)
				break
			}
			line := bytes.TrimSuffix(data[end:end+nl], []byte("\r"))
			end += nl + 1
			if !continues(line) {
				// indented lines belong to the statement above
				if end < len(data) && (data[end] == ' ' || data[end] == '\t') && !blankFrom(data, end) {
					continue
				}
				break
			}
		}
		items = append(items, newItem(data[start:end]))
		start = end
	}
	return items
}

// continues says a physical line ends with an unescaped "$".
func continues(line []byte) bool {
	n := 0
	for i := len(line) - 1; i >= 0 && line[i] == '$'; i-- {
		n++
	}
	return n%2 == 1
}

// blankFrom says the line starting at i holds only spaces.
func blankFrom(data []byte, i int) bool {
	for ; i < len(data) && data[i] != '\n'; i++ {
		if data[i] != ' ' && data[i] != '\t' && data[i] != '\r' {
			return false
		}
	}
	return true
}

func newItem(raw []byte) manifestItem {
	it := manifestItem{raw: raw}
	lines := logicalLines(raw)
	if len(lines) == 0 {
		return it
	}
	rest, ok := strings.CutPrefix(lines[0], "build ")
	if !ok {
		return it
	}
	it.build = true
	it.outs = edgeOutputs(rest)
	rule, ins := edgeInputs(rest)
	it.ins = ins
	it.phony = rule == "phony"
	return it
}

// edgeInputs reads a build statement after its first unescaped colon: the
// rule, then the inputs (explicit, "|" implicit, "||" order-only; "|@"
// validations are not inputs), escapes undone.
func edgeInputs(s string) (rule string, ins []string) {
	colon := -1
	for i := 0; i < len(s); i++ {
		if s[i] == '$' {
			i++
		} else if s[i] == ':' {
			colon = i
			break
		}
	}
	if colon < 0 {
		return "", nil
	}
	var words []string
	var cur strings.Builder
	flush := func() {
		if cur.Len() > 0 {
			words = append(words, cur.String())
		}
		cur.Reset()
	}
	for i := colon + 1; i < len(s); i++ {
		switch c := s[i]; {
		case c == '$' && i+1 < len(s):
			cur.WriteByte(s[i+1])
			i++
		case c == ' ':
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	if len(words) == 0 {
		return "", nil
	}
	for _, w := range words[1:] {
		if w == "|@" {
			break
		}
		if w != "|" && w != "||" {
			ins = append(ins, w)
		}
	}
	return words[0], ins
}

// chains are, for each build statement of items, the expected time from
// its start to the end of the longest chain of edges that waits on it:
// its own time plus the longest chain of the edges that read its outputs.
// An edge not in durations is expected to take the median of those that
// are (a new file is an ordinary one); a phony edge takes nothing.
func chains(items []manifestItem, d Durations) []time.Duration {
	readers := readersOf(items)
	guess := medianOf(d)
	own := make([]time.Duration, len(items))
	for i, it := range items {
		if !it.build || it.phony {
			continue
		}
		own[i] = guess
		for _, o := range it.outs {
			if t, ok := d[o]; ok {
				own[i] = t
				break
			}
		}
	}
	chain := make([]time.Duration, len(items))
	state := make([]byte, len(items)) // 0 new, 1 visiting, 2 done
	var visit func(i int) time.Duration
	visit = func(i int) time.Duration {
		switch state[i] {
		case 1:
			return 0 // a cycle Ninja refuses anyway
		case 2:
			return chain[i]
		}
		state[i] = 1
		var longest time.Duration
		for _, r := range readers[i] {
			longest = max(longest, visit(r))
		}
		chain[i] = own[i] + longest
		state[i] = 2
		return chain[i]
	}
	for i := range items {
		visit(i)
	}
	return chain
}

func medianOf(d Durations) time.Duration {
	if len(d) == 0 {
		return 0
	}
	ts := make([]time.Duration, 0, len(d))
	for _, t := range d {
		ts = append(ts, t)
	}
	slices.Sort(ts)
	return ts[len(ts)/2]
}

// orderManifest returns the manifest with the build statements of each
// run of them (build statements, comments and blank lines between two
// other statements) sorted longest chain first, ties kept in their order.
// Every other statement stays where it is: a build statement's paths are
// evaluated with the variables bound above it, and those are the same
// anywhere in a run, so the copy builds exactly what the original builds.
func orderManifest(data []byte, d Durations) []byte {
	return orderItems(splitManifest(data), d)
}

func orderItems(items []manifestItem, d Durations) []byte {
	if n := len(items); n > 0 && !bytes.HasSuffix(items[n-1].raw, []byte("\n")) {
		// A last line without its newline (never CMake's) could be a
		// "$" continuation that would swallow what is moved after it.
		var out []byte
		for _, it := range items {
			out = append(out, it.raw...)
		}
		return out
	}
	chain := chains(items, d)
	out := make([]byte, 0, 1<<16)
	for i := 0; i < len(items); {
		if !movable(items[i]) {
			out = append(out, items[i].raw...)
			i++
			continue
		}
		j := i
		for j < len(items) && movable(items[j]) {
			j++
		}
		var builds []int
		for k := i; k < j; k++ {
			if items[k].build {
				builds = append(builds, k)
			} else {
				out = appendLine(out, items[k].raw) // comments and blank lines first
			}
		}
		slices.SortStableFunc(builds, func(a, b int) int {
			return -cmpDuration(chain[a], chain[b])
		})
		for _, k := range builds {
			out = appendLine(out, items[k].raw)
		}
		i = j
	}
	return out
}

func cmpDuration(a, b time.Duration) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// movable: a build statement, a comment or a blank line.
func movable(it manifestItem) bool {
	if it.build {
		return true
	}
	t := bytes.TrimLeft(it.raw, " \t")
	return len(bytes.TrimSpace(t)) == 0 || t[0] == '#'
}

// appendLine appends a statement, ending it with a newline if the file's
// last one had none (it may not stay last).
func appendLine(out, raw []byte) []byte {
	out = append(out, raw...)
	if len(raw) > 0 && raw[len(raw)-1] != '\n' {
		out = append(out, '\n')
	}
	return out
}

// readersOf are, for each statement of items, the statements that read
// one of its outputs.
func readersOf(items []manifestItem) [][]int {
	producer := map[string]int{}
	for i, it := range items {
		for _, o := range it.outs {
			producer[o] = i
		}
	}
	readers := make([][]int, len(items))
	for i, it := range items {
		for _, in := range it.ins {
			if p, ok := producer[in]; ok && p != i {
				readers[p] = append(readers[p], i)
			}
		}
	}
	return readers
}
