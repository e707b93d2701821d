package deps

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
)

// relayout rewrites a git archive (a tar whose every entry is under
// prefix) so that each layout move's From is stored at its To, keeping
// the entries' order, modes and times: the same commit and layout always
// give the same bytes. An entry no move covers (a parent directory of a
// From) is left out; a move whose From the commit lacks is an error, so
// a layout cannot silently store less than it names.
func relayout(archive []byte, prefix string, moves []configs.Move) ([]byte, error) {
	tr := tar.NewReader(bytes.NewReader(archive))
	var out bytes.Buffer
	tw := tar.NewWriter(&out)
	used := make([]bool, len(moves))
	made := map[string]bool{}
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("reading the archive: %w", err)
		}
		if h.Typeflag == tar.TypeXGlobalHeader {
			// git's pax header carries the commit id: keep it.
			if err := tw.WriteHeader(h); err != nil {
				return nil, err
			}
			continue
		}
		rel, ok := strings.CutPrefix(h.Name, prefix)
		if !ok {
			return nil, fmt.Errorf("archive entry %q is outside %s", h.Name, prefix)
		}
		i, moved := move(rel, moves)
		if i < 0 {
			continue
		}
		used[i] = true
		// The parents of a To exist in the release layout as directories.
		if err := parents(tw, h, prefix, moved, made); err != nil {
			return nil, err
		}
		if strings.HasSuffix(rel, "/") {
			moved += "/"
		}
		if made[moved] {
			continue
		}
		made[moved] = true
		h.Name = prefix + moved
		if err := tw.WriteHeader(h); err != nil {
			return nil, err
		}
		if _, err := io.Copy(tw, tr); err != nil {
			return nil, err
		}
	}
	for i, u := range used {
		if !u {
			return nil, fmt.Errorf("layout: the commit has no %s", moves[i].From)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// move maps rel by the longest From that is rel or one of its parents;
// -1 when none is.
func move(rel string, moves []configs.Move) (int, string) {
	bare := strings.TrimSuffix(rel, "/")
	best, out := -1, ""
	for i, m := range moves {
		if bare != m.From && !strings.HasPrefix(bare, m.From+"/") {
			continue
		}
		if best < 0 || len(m.From) > len(moves[best].From) {
			best, out = i, m.To+bare[len(m.From):]
		}
	}
	return best, out
}

// parents writes a directory entry for each parent of moved not yet
// written, with h's time and a directory mode.
func parents(tw *tar.Writer, h *tar.Header, prefix, moved string, made map[string]bool) error {
	parts := strings.Split(moved, "/")
	for i := 1; i < len(parts); i++ {
		dir := strings.Join(parts[:i], "/") + "/"
		if made[dir] {
			continue
		}
		made[dir] = true
		d := &tar.Header{Typeflag: tar.TypeDir, Name: prefix + dir, Mode: 0o775, ModTime: h.ModTime, Format: h.Format}
		if err := tw.WriteHeader(d); err != nil {
			return err
		}
	}
	return nil
}
