package flow

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/cmake"
)

// planChains is how many of the longest chains plan shows.
const planChains = 3

// planCritical is plan's critical path: the longest chains of the
// configured build expected from the edges' known times.
type planCritical struct {
	From    string      `json:"from"`    // where the times come from
	Ordered bool        `json:"ordered"` // a build would start them first (MLXBUILD_ORDER is not off)
	Chains  []planChain `json:"chains"`
}

type planChain struct {
	Seconds float64         `json:"seconds"`
	Edges   []planChainEdge `json:"edges"`
}

type planChainEdge struct {
	Output  string  `json:"output"`
	Seconds float64 `json:"seconds"`
}

// criticalPath is nil before a first build (no times) or configure (no
// graph); then why says which of the two is missing.
func (p *Prepared) criticalPath(warn func(string, ...any)) (c *planCritical, why string) {
	d, from := p.knownDurations(warn)
	chains := cmake.ExpectedChains(p.Layout.Build, d, planChains)
	if len(chains) == 0 {
		if len(d) == 0 {
			return nil, "not known yet (a first build records the edges' times)"
		}
		return nil, fmt.Sprintf("not known before the first configure (no build graph yet; %d edge times known from %s)", len(d), from)
	}
	c = &planCritical{From: from, Ordered: p.Opts.Env(EnvOrder) != "off"}
	for _, ch := range chains {
		pc := planChain{Seconds: roundSeconds(ch.Took)}
		for _, e := range ch.Edges {
			pc.Edges = append(pc.Edges, planChainEdge{Output: e.Output, Seconds: roundSeconds(e.Took)})
		}
		c.Chains = append(c.Chains, pc)
	}
	return c, ""
}

func roundSeconds(d time.Duration) float64 { return float64(d.Milliseconds()) / 1000 }

// printCritical prints the critical path: one line per chain, its
// expected time and its edges (the first few); why when there is none.
func printCritical(w io.Writer, c *planCritical, why string) {
	if c == nil {
		fmt.Fprintln(w, "critical:  "+why)
		return
	}
	order := "a build starts them first"
	if !c.Ordered {
		order = EnvOrder + "=off: Ninja's own order"
	}
	fmt.Fprintf(w, "critical:  %s expected (times from %s; %s)\n", secs(c.Chains[0].Seconds), c.From, order)
	for _, ch := range c.Chains {
		var parts []string
		for i, e := range ch.Edges {
			if i == 4 {
				parts = append(parts, fmt.Sprintf("%d more", len(ch.Edges)-i))
				break
			}
			parts = append(parts, e.Output+" "+secs(e.Seconds))
		}
		fmt.Fprintf(w, "  %6s  %s\n", secs(ch.Seconds), strings.Join(parts, " -> "))
	}
}

func secs(s float64) string {
	if s >= 10 {
		return fmt.Sprintf("%.0fs", s)
	}
	return fmt.Sprintf("%.1fs", s)
}
