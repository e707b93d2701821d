package benchcsv

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/inputfile"
)

// DefaultCatalog is where the reference keeps its model catalog, relative to
// the repository root: a TSV whose local_name column is the directory name in
// use now and whose aliases column lists, `;`-separated, the names older
// benchmark files used.
const DefaultCatalog = "docs/model-catalog.tsv"

// LoadCatalog reads a model catalog into an alias map (every name, current
// ones included, to the current name). A missing file at the default path is
// no catalog; a missing file the user named is an error.
func LoadCatalog(ctx context.Context, path string, named bool) (map[string]string, error) {
	fix := "point -catalog at a regular file"
	if !named {
		fix = "make " + path + " a regular file, or point -catalog at one"
	}
	data, err := (inputfile.File{Path: path, What: "model catalog", Fix: fix, Limit: inputfile.ConfigLimit}).Read(ctx)
	if errors.Is(err, os.ErrNotExist) && !named {
		return map[string]string{}, nil
	}
	if fail.KindOf(err) == fail.Config {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("reading the model catalog: %w; check -catalog", err)
	}
	return ParseCatalog(path, data)
}

// ParseCatalog parses a catalog TSV named name (for messages). The aliases
// column is split on `;` only, as the reference writes it (splitting it on
// `,` silently lost keys there once).
func ParseCatalog(name string, data []byte) (map[string]string, error) {
	r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\uFEFF"))))
	r.Comma = '\t'
	r.LazyQuotes = true
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err == io.EOF {
		return nil, &InputError{File: name, Msg: "the catalog is empty", Fix: "expected a header with local_name and aliases"}
	}
	if err != nil {
		return nil, csvError(name, err)
	}
	local, aliases := -1, -1
	for i, h := range header {
		switch strings.TrimSpace(h) {
		case "local_name":
			local = i
		case "aliases":
			aliases = i
		}
	}
	if local < 0 {
		return nil, &InputError{File: name, Line: 1, Msg: "no local_name column in the header", Fix: "expected the reference's model-catalog.tsv"}
	}
	out := map[string]string{}
	owner := map[string]int{} // alias -> line that claimed it
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, csvError(name, err)
		}
		line, _ := r.FieldPos(0)
		if local >= len(rec) || strings.TrimSpace(rec[local]) == "" {
			continue
		}
		cur := strings.TrimSpace(rec[local])
		out[cur] = cur
		if aliases < 0 || aliases >= len(rec) {
			continue
		}
		for _, a := range strings.Split(rec[aliases], ";") {
			a = strings.TrimSpace(a)
			if a == "" || a == cur {
				continue
			}
			if prev, ok := out[a]; ok && prev != cur {
				_, col := r.FieldPos(aliases)
				return nil, &InputError{File: name, Line: line, Col: col, Column: "aliases",
					Msg: fmt.Sprintf("alias %q names both %s (line %d) and %s", a, prev, owner[a], cur),
					Fix: "an alias must name one model"}
			}
			out[a] = cur
			owner[a] = line
		}
	}
}
