package verify

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/mlxbuild/mlxbuild/overlays/records"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// Integrity checks a materialized tree (check 3): it must equal pristine +
// overlay byte for byte, computed here independently of the code that
// materialized it: every file of the pristine source and of the overlay, the
// overlay winning, the overlay's records files left out. A file that differs
// is a hand edit, named with its first differing line; a records file or any
// other extra file in the tree is named too.
type Integrity struct {
	Tree     string
	Pristine string
	Overlay  string
	// Ignore lists globs of tree files that are neither pristine nor overlay
	// but allowed there (for instance a marker the materializer writes).
	Ignore []string
	// Require fails the check, instead of skipping it, when the tree does
	// not exist yet.
	Require bool
	// Records lists the overlay's records files (slash-separated, relative
	// to the overlay, as given to overlays.Materialize); default
	// records.Names.
	Records []string
}

// Name is the check's name in reports.
func (Integrity) Name() string { return "integrity" }

// Run compares the tree with pristine + overlay.
func (c Integrity) Run(ctx context.Context) Result {
	if !exists(c.Tree) {
		if c.Require {
			return result(c.Name(), []Finding{{File: c.Tree, Message: "the tree does not exist",
				Fix: "materialize it first (overlay:apply <backend> or build:<backend>)"}}, "")
		}
		return skipped(c.Name(), fmt.Sprintf("no tree at %s yet (run overlay:apply or build first)", c.Tree))
	}
	var fs []Finding
	want := map[string]string{} // relative path -> file holding the expected bytes
	pristine, err := walkFiles(c.Pristine)
	if err != nil {
		return result(c.Name(), []Finding{{File: c.Pristine, Message: fmt.Sprintf("cannot read the pristine source: %v", err),
			Fix: "check the source: entry of the project file, or run build to fetch it"}}, "")
	}
	for _, f := range pristine {
		want[f] = display(c.Pristine, f)
	}
	overlay, err := walkFiles(c.Overlay)
	if err != nil {
		return result(c.Name(), []Finding{{File: c.Overlay, Message: fmt.Sprintf("cannot read the overlay: %v", err),
			Fix: "check the backend's overlay: entry of the project file"}}, "")
	}
	isRecord := recordSet(c.Records)
	for _, f := range overlay {
		if !isRecord[f] {
			want[f] = display(c.Overlay, f)
		}
	}
	tree, err := walkFiles(c.Tree)
	if err != nil {
		return result(c.Name(), []Finding{{File: c.Tree, Message: fmt.Sprintf("cannot read the tree: %v", err),
			Fix: "check permissions, or delete the tree and run build again"}}, "")
	}
	inTree := map[string]bool{}
	for _, f := range tree {
		if ctx.Err() != nil {
			return skipped(c.Name(), "stopped: "+ctx.Err().Error())
		}
		inTree[f] = true
		src, ok := want[f]
		tf := display(c.Tree, f)
		switch {
		case !ok && (isRecord[f] || isRecord[path.Base(f)]):
			fs = append(fs, Finding{File: tf, Message: fmt.Sprintf("records file %s was copied into the tree", f),
				Fix: "delete it from the tree and run overlay:apply; records files describe the overlay and are not sources"})
		case !ok && matchAny(c.Ignore, f):
		case !ok:
			fs = append(fs, Finding{File: tf, Message: "extra file: in neither the pristine source nor the overlay",
				Fix: "move it into the overlay if it is needed, or delete it and run overlay:apply"})
		default:
			if f := compareFiles(tf, src, display(c.Overlay, f)); f != nil {
				fs = append(fs, *f)
			}
		}
	}
	for f, src := range want {
		if !inTree[f] {
			fs = append(fs, Finding{File: display(c.Tree, f), Message: fmt.Sprintf("missing from the tree (expected a copy of %s)", src),
				Fix: "run overlay:apply to restore it"})
		}
	}
	sortFindings(fs)
	return result(c.Name(), fs, plural.Count(len(tree), "file")+" compared")
}

// compareFiles returns a finding when the tree file differs from its source.
func compareFiles(treeFile, srcFile, overlayFile string) *Finding {
	a, err := os.ReadFile(treeFile)
	if err != nil {
		return &Finding{File: treeFile, Message: fmt.Sprintf("cannot read: %v", err), Fix: "check permissions, or run overlay:apply"}
	}
	b, err := os.ReadFile(srcFile)
	if err != nil {
		return &Finding{File: srcFile, Message: fmt.Sprintf("cannot read: %v", err), Fix: "check permissions"}
	}
	if bytes.Equal(a, b) {
		return nil
	}
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return &Finding{File: treeFile, Line: lineOf(a, n),
		Message: fmt.Sprintf("hand edit: differs from %s (first difference at this line)", srcFile),
		Fix:     fmt.Sprintf("if the change is wanted, put the file in the overlay at %s; then run overlay:apply, which restores the tree", overlayFile)}
}

// recordSet is the set of records file paths, records.Names by default.
func recordSet(list []string) map[string]bool {
	if len(list) == 0 {
		list = records.Names
	}
	set := map[string]bool{}
	for _, r := range list {
		set[strings.TrimPrefix(r, "./")] = true
	}
	return set
}
