package cmake

import (
	"os"
	"path/filepath"
	"slices"

	"github.com/mlxbuild/mlxbuild/internal/memo"
)

// A link plan asks the graph whether it builds an archive older than
// build.ninja (one an earlier configure's graph left is never linked). After
// a configure that rebuilt nothing every archive is older, and every no-op
// read and parsed the whole graph again (a quarter of a megabyte on the real
// ROCm fork, a tenth of the no-op's CPU time). The answer depends only on
// the manifests, so the build directory keeps the archives the graph was
// found to build with the identity (memo.ID.Key) of each manifest read,
// taken before reading it, build.ninja first; it stands while every one of
// them keeps its identity. Only "builds it" is kept: "does not" ends the
// plan with an error, which reads the graph again.
const (
	productsMemoFile = "mlxbuild-products"
	productsMemoKind = "graph-products"
)

// GraphProducts answers, for one build directory, which files its Ninja
// graph builds, from the memo while it stands and otherwise from the graph.
// It is not safe for concurrent use.
type GraphProducts struct {
	dir      string
	checked  bool            // the memo was read (recalled holds its answer)
	recalled []string        // products the standing memo names
	outs     map[string]bool // the graph's outputs, once read
	keys     []string        // identities of the manifests outs was read from
	found    []string        // products asked for since, sorted, for the memo
}

// NewGraphProducts answers for dir's graph; it reads nothing yet.
func NewGraphProducts(dir string) *GraphProducts { return &GraphProducts{dir: dir} }

// Builds reports whether dir's graph builds path (absolute, or relative to
// dir as Ninja's are).
func (g *GraphProducts) Builds(path string) (bool, error) {
	if !filepath.IsAbs(path) {
		path = filepath.Join(g.dir, path)
	}
	path = filepath.Clean(path)
	if g.outs == nil {
		if !g.checked {
			g.checked = true
			g.recalled = recalledProducts(g.dir)
		}
		if slices.Contains(g.recalled, path) {
			return true, nil
		}
		var keys []string
		outs, err := graphOutputs(g.dir, &keys)
		if err != nil {
			return false, err
		}
		g.outs, g.keys = outs, keys
		for _, p := range g.recalled {
			if outs[p] {
				g.found = append(g.found, p)
			}
		}
		slices.Sort(g.found)
	}
	if !g.outs[path] {
		return false, nil
	}
	if i, ok := slices.BinarySearch(g.found, path); !ok {
		g.found = slices.Insert(g.found, i, path)
		rememberProducts(g.dir, g.keys, g.found)
	}
	return true, nil
}

// recalledProducts is the products the memo in dir names, or nil when it
// does not stand: another form, a torn file, another graph's, or a
// manifest changed.
func recalledProducts(dir string) []string {
	products, _ := memo.Get(filepath.Join(dir, productsMemoFile), productsMemoKind, productsMemoKeys(joinBuild(dir, "build.ninja")), os.Getenv, productsFromValues)
	return products
}

// rememberProducts keeps products, found in the manifests keys name
// (build.ninja first), for the next plan, as an internal/memo entry keyed
// by build.ninja's path. A failure to write costs only the next plan a
// read of the graph, so it is not an error.
func rememberProducts(dir string, keys, products []string) {
	if len(keys) == 0 {
		return
	}
	graph, ok := memo.KeyPath(keys[0])
	if !ok {
		return
	}
	e := memo.Entry{Keys: productsMemoKeys(graph), Files: keys}
	for _, p := range products {
		e.Values = append(e.Values, [2]string{"out", p})
	}
	memo.Store(filepath.Join(dir, productsMemoFile), productsMemoKind, e)
}

func productsMemoKeys(graph string) [][2]string { return [][2]string{{"graph", graph}} }

// productsFromValues is the products an entry's values hold; not ok for
// none, or for a path that is not absolute.
func productsFromValues(values [][2]string) ([]string, bool) {
	var products []string
	for _, kv := range values {
		if kv[0] != "out" || !filepath.IsAbs(kv[1]) {
			return nil, false
		}
		products = append(products, kv[1])
	}
	return products, len(products) > 0
}
