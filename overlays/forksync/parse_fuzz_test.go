package forksync

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/overlays/records"
)

// The seeds of these fuzz targets are in testdata/fuzz/<name>/: real git
// 2.39 output recorded on this machine (diffs of names git quotes, ls-tree
// -z and cat-file --batch of a small tree) and edge cases. `go test` runs
// them as regression cases; -fuzz explores further.

// quoteGitPath quotes a path the way git's quote_c_style does with
// core.quotePath on: names with a control byte, '"', '\\' or a byte >= 0x80
// are C-quoted with octal escapes.
func quoteGitPath(p string) string {
	need := false
	for i := 0; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f {
			need = true
		}
	}
	if !need {
		return p
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\t':
			b.WriteString(`\t`)
		case '\n':
			b.WriteString(`\n`)
		case '\v':
			b.WriteString(`\v`)
		case '\f':
			b.WriteString(`\f`)
		case '\r':
			b.WriteString(`\r`)
		case '"':
			b.WriteString(`\"`)
		case '\\':
			b.WriteString(`\\`)
		default:
			if c < 0x20 || c >= 0x7f {
				fmt.Fprintf(&b, `\%03o`, c)
			} else {
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('"')
	return b.String()
}

// renderDiff writes files as git diff --no-renames does: the header, the
// side paths (a tab after a name with a space), the hunks.
func renderDiff(files []fileDiff) string {
	var b strings.Builder
	side := func(prefix, p string) string {
		q := quoteGitPath(prefix + p)
		if strings.Contains(p, " ") {
			q += "\t"
		}
		return q
	}
	for _, f := range files {
		fmt.Fprintf(&b, "diff --git %s %s\n", quoteGitPath("a/"+f.path), quoteGitPath("b/"+f.path))
		switch {
		case f.added:
			b.WriteString("new file mode 100644\n")
		case f.deleted:
			b.WriteString("deleted file mode 100644\n")
		}
		b.WriteString("index 1111111..2222222\n")
		if f.binary {
			fmt.Fprintf(&b, "Binary files %s and %s differ\n", quoteGitPath("a/"+f.path), quoteGitPath("b/"+f.path))
			continue
		}
		if len(f.hunks) == 0 {
			continue
		}
		old, new := side("a/", f.path), side("b/", f.path)
		if f.added {
			old = "/dev/null"
		}
		if f.deleted {
			new = "/dev/null"
		}
		fmt.Fprintf(&b, "--- %s\n+++ %s\n", old, new)
		for _, h := range f.hunks {
			b.WriteString(h.header() + "\n")
			for _, l := range h.lines {
				b.WriteString(l + "\n")
			}
		}
	}
	return b.String()
}

// FuzzParseDiff: parseDiff never panics; every hunk line carries its
// marker; a hunk header reads back as written; and rendering what was
// parsed the way git writes it (quoting names as git does) parses back to
// the same files, so no name git quotes is lost.
func FuzzParseDiff(f *testing.F) {
	f.Fuzz(func(t *testing.T, out string) {
		files, err := parseDiff(out)
		if err != nil {
			if !strings.Contains(err.Error(), "hunk header") {
				t.Fatalf("an error that does not say what it could not read: %v", err)
			}
			return
		}
		for _, fd := range files {
			for _, h := range fd.hunks {
				for _, l := range h.lines {
					if l == "" || strings.IndexByte(" -+", l[0]) < 0 || strings.Contains(l, "\n") {
						t.Fatalf("hunk line %q has no marker or holds a newline", l)
					}
				}
				back, err := parseHunkHeader(h.header())
				if err != nil || back.oldStart != h.oldStart || back.oldLines != h.oldLines || back.newStart != h.newStart || back.newLines != h.newLines {
					t.Fatalf("header %q reads back as %+v (%v)", h.header(), back, err)
				}
			}
		}
		// The round trip needs what git can write: a file with a path, and
		// lines that do not themselves look like diff headers.
		var keep []fileDiff
		for _, fd := range files {
			if fd.path == "" || strings.ContainsRune(fd.path, 0) || fd.added && fd.deleted || fd.binary && len(fd.hunks) > 0 {
				continue
			}
			keep = append(keep, fd)
		}
		again, err := parseDiff(renderDiff(keep))
		if err != nil {
			t.Fatalf("a rendered diff does not parse: %v\n%s", err, renderDiff(keep))
		}
		if len(again) != len(keep) {
			t.Fatalf("%d files rendered, %d read back:\n%s", len(keep), len(again), renderDiff(keep))
		}
		for i := range keep {
			w, g := keep[i], again[i]
			if g.path != w.path || g.added != w.added || g.deleted != w.deleted || g.binary != w.binary || !sameHunks(g.hunks, w.hunks) {
				t.Fatalf("file %d read back as %+v, want %+v\n%s", i, g, w, renderDiff(keep))
			}
		}
	})
}

func sameHunks(a, b []hunk) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].header() != b[i].header() || strings.Join(a[i].lines, "\n") != strings.Join(b[i].lines, "\n") {
			return false
		}
	}
	return true
}

// FuzzParseLsTree: parseLsTree never panics; what it accepts has a path
// without NUL and an id without white space, and writing the entries back
// in ls-tree -z form reads back the same entries.
func FuzzParseLsTree(f *testing.F) {
	f.Fuzz(func(t *testing.T, out []byte) {
		entries, err := parseLsTree(out, "c0ffee", "repo")
		if err != nil {
			if !strings.Contains(err.Error(), "forksync: ") {
				t.Fatalf("error without its origin: %v", err)
			}
			return
		}
		var b bytes.Buffer
		for _, e := range entries {
			if e.path == "" || strings.ContainsRune(e.path, 0) || e.id == "" || strings.ContainsAny(e.id, " \t\n\x00") {
				t.Fatalf("accepted entry %+v", e)
			}
			mode := "100644"
			if e.exec {
				mode = "100755"
			}
			fmt.Fprintf(&b, "%s blob %s\t%s\x00", mode, e.id, e.path)
		}
		again, err := parseLsTree(b.Bytes(), "c0ffee", "repo")
		if err != nil || !reflect.DeepEqual(again, entries) {
			t.Fatalf("entries %+v read back as %+v (%v)", entries, again, err)
		}
	})
}

// FuzzParseCatFileBatch: whatever git's cat-file --batch output holds,
// parsing never panics or reads past it; blobs written in its format read
// back byte for byte.
func FuzzParseCatFileBatch(f *testing.F) {
	f.Fuzz(func(t *testing.T, stdout []byte, blob []byte) {
		entries := []treeEntry{{path: "a", id: "1111"}, {path: "b/c", id: "2222", exec: true}}
		out := files{}
		if err := parseCatFileBatch(stdout, entries, out); err == nil {
			total := 0
			for _, b := range out {
				total += len(b.data)
			}
			if total > len(stdout) {
				t.Fatalf("read %d bytes of content from %d bytes of output", total, len(stdout))
			}
		}
		var w bytes.Buffer
		for _, e := range entries {
			fmt.Fprintf(&w, "%s blob %d\n%s\n", e.id, len(blob), blob)
		}
		out = files{}
		if err := parseCatFileBatch(w.Bytes(), entries, out); err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if b := out[e.path]; !bytes.Equal(b.data, blob) || b.exec != e.exec {
				t.Fatalf("%s read back as %q (exec %v), want %q", e.path, b.data, b.exec, blob)
			}
		}
	})
}

// FuzzSetUpstream: setting UPSTREAM's commit: and fork_upstream_merge_base:
// leaves every other field as it was, makes the set ones read back with
// their new values, and keeps every line it did not rewrite byte for byte.
func FuzzSetUpstream(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte, c, b string) {
		// Sync sets commit ids only: make them of the fuzzer's strings.
		commit, base := hex.EncodeToString([]byte(c + "0")[:min(len(c)+1, 32)]), hex.EncodeToString([]byte(b + "0")[:min(len(b)+1, 32)])
		before, probs := records.ParseUpstream(data)
		set := [][2]string{{"commit", commit}, {"fork_upstream_merge_base", base}}
		out := setUpstream(data, set)
		after, probsAfter := records.ParseUpstream(out)
		for _, kv := range set {
			if got, ok := after.Get(kv[0]); !ok || got.Value != kv[1] {
				t.Fatalf("%s reads back as %q (%v) from %q", kv[0], got.Value, ok, out)
			}
		}
		for _, fd := range before.Fields {
			if fd.Key == "commit" || fd.Key == "fork_upstream_merge_base" {
				continue
			}
			if got, ok := after.Get(fd.Key); !ok || got.Value != fd.Value || got.Line != fd.Line {
				t.Fatalf("field %s changed: %+v -> %+v (%v)\nin:  %q\nout: %q", fd.Key, fd, got, ok, data, out)
			}
		}
		if len(probsAfter) != len(probs) {
			t.Fatalf("problems %v became %v\nin:  %q\nout: %q", probs, probsAfter, data, out)
		}
		// Lines other than the rewritten ones keep their bytes.
		inLines := strings.SplitAfter(string(data), "\n")
		if inLines[len(inLines)-1] == "" {
			inLines = inLines[:len(inLines)-1] // the end of the last line, not a line
		}
		outLines := strings.SplitAfter(string(out), "\n")
		for i, l := range inLines {
			if i >= len(outLines) {
				t.Fatalf("line %d lost\nin:  %q\nout: %q", i+1, data, out)
			}
			if c, ok := before.Get("commit"); ok && c.Line == i+1 {
				continue
			}
			if b, ok := before.Get("fork_upstream_merge_base"); ok && b.Line == i+1 {
				continue
			}
			if strings.TrimSuffix(outLines[i], "\n") != strings.TrimSuffix(l, "\n") {
				t.Fatalf("line %d changed: %q -> %q", i+1, l, outLines[i])
			}
		}
	})
}
