package cmake

import (
	"slices"
	"strings"
	"time"
)

// ChainEdge is one edge of an expected chain and its expected time.
type ChainEdge struct {
	Output string
	Took   time.Duration
}

// Chain is a chain of edges, each waiting on the one before, and its
// expected time from the first's start to the last's end.
type Chain struct {
	Took  time.Duration
	Edges []ChainEdge
}

// ExpectedChains are the n longest chains of dir's build.ninja expected
// from d, longest first, each from a different first edge that lies on no
// longer one: where a cold build's time goes. None when dir has no
// manifest or d knows nothing.
func ExpectedChains(dir string, d Durations, n int) []Chain {
	if len(d) == 0 {
		return nil
	}
	items := readManifestItems(dir)
	chain := chains(items, d)
	readers := readersOf(items)
	order := make([]int, 0, len(items))
	for i, it := range items {
		if it.build && !it.phony {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int { return -cmpDuration(chain[a], chain[b]) })
	onChain := map[int]bool{}
	var out []Chain
	for _, start := range order {
		if len(out) == n {
			break
		}
		if onChain[start] || chain[start] == 0 {
			continue
		}
		c := Chain{Took: chain[start]}
		for i := start; i >= 0; {
			onChain[i] = true
			next := -1
			if !items[i].phony {
				c.Edges = append(c.Edges, ChainEdge{Output: outputLabel(items[i]), Took: chain[i]})
			}
			for _, r := range readers[i] {
				if next < 0 || chain[r] > chain[next] {
					next = r
				}
			}
			i = next
		}
		// each edge's own time: its chain less the rest's
		for k := range c.Edges {
			if k+1 < len(c.Edges) {
				c.Edges[k].Took -= c.Edges[k+1].Took
			}
		}
		out = append(out, c)
	}
	return out
}

// outputLabel names an edge by its first output; one spelled with a
// variable as written.
func outputLabel(it manifestItem) string {
	if len(it.outs) > 0 {
		return it.outs[0]
	}
	lines := logicalLines(it.raw)
	if len(lines) == 0 {
		return ""
	}
	first, _, _ := strings.Cut(strings.TrimPrefix(lines[0], "build "), ":")
	first, _, _ = strings.Cut(first, " ")
	return first
}
