package cmake

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/fileid"
)

// A link plan asks the graph whether it builds an archive older than
// build.ninja (one an earlier configure's graph left is never linked). After
// a configure that rebuilt nothing every archive is older, and every no-op
// read and parsed the whole graph again (a quarter of a megabyte on the real
// ROCm fork, a tenth of the no-op's CPU time). The answer depends only on
// the manifests, so the build directory keeps the archives the graph was
// found to build with the identity (fileid.ID.Key) of each manifest read,
// taken before reading it, build.ninja first; it stands while every one of
// them keeps its identity. Only "builds it" is kept: "does not" ends the
// plan with an error, which reads the graph again.
const (
	productsMemoFile   = "mlxbuild-products"
	productsMemoHeader = "mlxbuild graph products 1"
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
// does not stand: another form, a torn file, or a manifest changed.
func recalledProducts(dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, productsMemoFile))
	if err != nil {
		return nil
	}
	keys, products, ok := parseProductsMemo(data)
	if !ok {
		return nil
	}
	if p, _ := fileid.KeyPath(keys[0]); p != joinBuild(dir, "build.ninja") || !fileid.KeysUnchanged(keys) {
		return nil
	}
	return products
}

// rememberProducts keeps products, found in the manifests keys name, for
// the next plan. A failure to write costs only the next plan a read of the
// graph, so it is not an error.
func rememberProducts(dir string, keys, products []string) {
	o := atomicfile.Options{Perm: 0o644, What: "graph products memo", NoSync: true, TempPattern: tempPattern(productsMemoFile)}
	_, _ = o.WriteIfChanged(filepath.Join(dir, productsMemoFile), formatProductsMemo(keys, products))
}

// formatProductsMemo writes the header, a `file <key>` line per manifest,
// then an `out <quoted path>` line per product.
func formatProductsMemo(keys, products []string) []byte {
	var b bytes.Buffer
	b.WriteString(productsMemoHeader + "\n")
	for _, k := range keys {
		b.WriteString("file " + k + "\n")
	}
	for _, p := range products {
		b.WriteString("out " + strconv.Quote(p) + "\n")
	}
	return b.Bytes()
}

// parseProductsMemo decodes formatProductsMemo's lines; ok is false for
// anything else, and for a memo with no manifest or no product.
func parseProductsMemo(data []byte) (keys, products []string, ok bool) {
	lines := strings.Split(string(data), "\n")
	if len(lines) < 4 || lines[0] != productsMemoHeader || lines[len(lines)-1] != "" {
		return nil, nil, false
	}
	for _, l := range lines[1 : len(lines)-1] {
		if k, found := strings.CutPrefix(l, "file "); found && products == nil {
			if _, ok := fileid.KeyPath(k); !ok {
				return nil, nil, false
			}
			keys = append(keys, k)
			continue
		}
		p, err := quotedField(l, "out ")
		if err != nil || !filepath.IsAbs(p) {
			return nil, nil, false
		}
		products = append(products, p)
	}
	if len(keys) == 0 || len(products) == 0 {
		return nil, nil, false
	}
	return keys, products, true
}
