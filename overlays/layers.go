package overlays

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// Layer is one overlay directory, or the part of it Files selects, laid
// over the tree at To. Layers apply in order; a later layer's file replaces
// an earlier one's at the same place, as the reference's CMake glue copies
// the shared patches/ first and the backend's own overlay last.
type Layer struct {
	Dir      string   // absolute
	Files    []string // patterns relative to Dir (see Match); none: every file
	To       string   // destination prefix in the tree, slash-separated; "" for the root
	Optional bool     // a named file that does not exist is skipped
}

// layerSource is where one file of the composed overlay comes from.
type layerSource struct {
	path  string // the file, absolute
	layer int    // its layer's index
}

// layerFiles lists what the layers put where: tree path -> source, the
// last layer winning. Records (slash paths relative to a layer's Dir, such
// as UPSTREAM) and .git are never taken. A named file that is missing is an
// error unless its layer is optional; a pattern that matches nothing is
// not (a layer for mlx/backend/cuda/** may be empty today).
func layerFiles(layers []Layer, records []string) (map[string]layerSource, error) {
	skip := map[string]bool{}
	for _, r := range records {
		skip[r] = true
	}
	out := map[string]layerSource{}
	for i, l := range layers {
		root, err := sourceDir("overlay layer", l.Dir, "fix the layer's dir: in mlxbuild.yaml")
		if err != nil {
			return nil, err
		}
		matched := make([]bool, len(l.Files))
		err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return fmt.Errorf("overlays: reading layer %s: %w; check its permissions", p, err)
			}
			rel := filepath.ToSlash(strings.TrimPrefix(strings.TrimPrefix(p, root), string(filepath.Separator)))
			if rel == "" {
				return nil
			}
			if rel == ".git" || strings.HasPrefix(d.Name(), tmpPrefix) {
				if d.IsDir() {
					return filepath.SkipDir
				}
				return nil
			}
			if d.IsDir() || skip[rel] {
				return nil
			}
			if d.Type()&fs.ModeSymlink != 0 || !d.Type().IsRegular() {
				return fmt.Errorf("overlays: layer entry %s is not a regular file; an overlay holds whole files: replace it with the file itself", p)
			}
			take := len(l.Files) == 0
			for j, pat := range l.Files {
				if Match(pat, rel) {
					take, matched[j] = true, true
				}
			}
			if take {
				out[path.Join(l.To, rel)] = layerSource{path: p, layer: i}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for j, pat := range l.Files {
			if !matched[j] && !l.Optional && !strings.ContainsAny(pat, "*?[") {
				return nil, fmt.Errorf("overlays: layer %d names %s, which is not in %s; fix the name or mark the layer optional: true", i+1, pat, root)
			}
		}
	}
	return out, nil
}

// Match reports whether the slash path rel matches pattern: path.Match per
// name, and a `**` name for any number of names (none included).
func Match(pattern, rel string) bool {
	return matchParts(strings.Split(pattern, "/"), strings.Split(rel, "/"))
}

func matchParts(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			for k := 0; k <= len(name); k++ {
				if matchParts(pat[1:], name[k:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, err := path.Match(pat[0], name[0]); err != nil || !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// LayerHashes is OverlayFiles for layers: tree path -> SHA-256 of the
// file that lands there. It reads the sources and writes nothing, so plan
// can compare it with a stamp.
func LayerHashes(layers []Layer, records []string) (map[string]string, error) {
	files, err := layerFiles(layers, records)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(files))
	for rel, src := range files {
		data, err := os.ReadFile(src.path)
		if err != nil {
			return nil, fmt.Errorf("overlays: reading %s: %w", src.path, err)
		}
		sum := sha256.Sum256(data)
		out[rel] = hex.EncodeToString(sum[:])
	}
	return out, nil
}

// Compose makes dst hold exactly the files the layers put in the tree, so
// Materialize can take it as the one overlay. Each file is a hard link to
// its source (the same inode and mtime: a touched source still recompiles,
// nothing is copied); where the file system refuses links it is a copy with
// the source's mtime and mode. A file already linked to its source, or an
// equal copy with its mtime, is left alone; files no layer provides any
// more are removed, with the directories they leave empty. dst belongs to
// mlxbuild (under the backend's cache directory); the caller holds the
// backend's lock.
func Compose(layers []Layer, records []string, dst string) (map[string]layerSource, error) {
	files, err := layerFiles(layers, records)
	if err != nil {
		return nil, err
	}
	// A layer's To comes from a spec: every tree path is confined before
	// the first file is placed.
	rels := make([]string, 0, len(files))
	for rel := range files {
		rels = append(rels, rel)
	}
	sort.Strings(rels)
	if err := safepath.CheckAll(rels); err != nil {
		//lint:ignore ST1005 the closing "to: or files:" are the project file's keys, spelled as written there.
		return nil, fmt.Errorf("overlays: composing the layers into %s: %w; fix the layer's to: or files:", dst, err)
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, fmt.Errorf("overlays: creating %s: %w; make the cache directory writable", dst, err)
	}
	for _, rel := range rels {
		at, err := safepath.Join(dst, rel)
		if err != nil {
			return nil, err
		}
		if err := place(files[rel].path, at); err != nil {
			return nil, err
		}
	}
	// Remove what no layer provides, deepest first so directories empty.
	var stale []string
	filepath.WalkDir(dst, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dst {
			return nil
		}
		rel, _ := filepath.Rel(dst, p)
		if _, ok := files[filepath.ToSlash(rel)]; !ok {
			stale = append(stale, p)
		}
		return nil
	})
	sort.Sort(sort.Reverse(sort.StringSlice(stale)))
	for _, p := range stale {
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			os.Remove(p) // only when empty: a directory that still holds files stays
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("overlays: removing %s: %w", p, err)
		}
	}
	return files, nil
}

// place makes dst the file src: a hard link, else a copy.
func place(src, dst string) error {
	si, err := os.Stat(src)
	if err != nil {
		return fmt.Errorf("overlays: reading %s: %w", src, err)
	}
	if di, err := os.Lstat(dst); err == nil {
		if os.SameFile(si, di) {
			return nil
		}
		if di.Mode().IsRegular() && di.Size() == si.Size() && di.ModTime().Equal(si.ModTime()) && di.Mode().Perm() == si.Mode().Perm() && sameContent(src, dst) {
			return nil
		}
		if err := os.RemoveAll(dst); err != nil {
			return fmt.Errorf("overlays: replacing %s: %w", dst, err)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fmt.Errorf("overlays: creating %s: %w", filepath.Dir(dst), err)
	}
	if os.Link(src, dst) == nil {
		return nil
	}
	return copyFile(src, dst, si)
}

func copyFile(src, dst string, si fs.FileInfo) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("overlays: reading %s: %w", src, err)
	}
	defer in.Close()
	tmp := filepath.Join(filepath.Dir(dst), tmpPrefix+filepath.Base(dst))
	out, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, si.Mode().Perm())
	if err != nil {
		return fmt.Errorf("overlays: writing %s: %w", dst, err)
	}
	_, err = io.Copy(out, in)
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chtimes(tmp, si.ModTime(), si.ModTime())
	}
	if err == nil {
		err = os.Rename(tmp, dst)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("overlays: copying %s to %s: %w", src, dst, err)
	}
	return nil
}

func sameContent(a, b string) bool {
	x, err1 := os.ReadFile(a)
	y, err2 := os.ReadFile(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
