package records

import (
	"fmt"
	"sort"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// CheckPaths refuses a residual that names a path no overlay file can
// have (".." in it, absolute, a NUL or a line break): a patch header, a
// hash line or a note. Such a record was not written by mlxbuild, and
// checkRecords -write must not rewrite it from a file it cannot trust.
// The error is a configuration error naming file:line.
func (r Residual) CheckPaths(file string) error {
	type named struct {
		path string
		line int
	}
	var all []named
	for _, p := range r.Patches {
		all = append(all, named{p.Path, p.line})
	}
	for _, m := range []map[string]Field{r.Hashes, r.Notes} {
		for p, f := range m {
			all = append(all, named{p, f.Line})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].line < all[j].line })
	for _, n := range all {
		if err := safepath.CheckRel(n.path); err != nil {
			return fail.WithFix(fmt.Errorf("%s: %w", fail.Pos{File: file, Line: n.line}, err),
				"correct or remove that entry by hand: a residual names only files of the overlay")
		}
	}
	return nil
}
