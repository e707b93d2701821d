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

// Every build, a no-op too, renders the link plan, which says the C++
// standard CMake's code model gives the plan's libraries. The model's files
// are JSON (real MLX's library target alone is tens of kilobytes), and
// decoding them was the largest part of a no-op's link plan. The answer
// depends only on the targets asked for and on the reply files read, which
// CMake never rewrites in place: every generate writes a new index, and
// names each reply file after a hash of its content. So the build directory
// keeps the last answer with the identity (fileid.ID.Key) of each file it
// was read from, taken before reading it, and the answer stands while the
// newest index and every one of those files keep theirs. Only an answer
// read whole from a model is kept (the early answers read no JSON), so the
// memo is written only into a build directory CMake generated, by any
// reader (plan too, as the discovery memo is: a cache of what is derived,
// which changes nothing a build or the user reads).
const (
	stdMemoFile   = "mlxbuild-cxxstd"
	stdMemoHeader = "mlxbuild cxx standard 1"
)

// stdMemo is a decoded memo.
type stdMemo struct {
	targets []string
	files   []string // fileid.ID.Key of each file read, the index first
	std     CXXStandard
}

// recalledStd is the memo's answer for targets when the newest index is
// still index and no file it was read from changed.
func recalledStd(build, index string, targets []string) (CXXStandard, bool) {
	data, err := os.ReadFile(filepath.Join(build, stdMemoFile))
	if err != nil {
		return CXXStandard{}, false
	}
	m, ok := parseStdMemo(data)
	if !ok || !slices.Equal(m.targets, targets) || len(m.files) == 0 {
		return CXXStandard{}, false
	}
	want := filepath.Join(fileAPIDir(build), "reply", index)
	if p, ok := fileid.KeyPath(m.files[0]); !ok || p != want || !fileid.KeysUnchanged(m.files) {
		return CXXStandard{}, false
	}
	return m.std, true
}

// rememberStd keeps std, read from files (keys taken before each was read),
// for the next build. A failure to write costs only the next build a
// decode, so it is not an error.
func rememberStd(build string, targets, files []string, std CXXStandard) {
	data := formatStdMemo(stdMemo{targets: targets, files: files, std: std})
	o := atomicfile.Options{Perm: 0o644, What: "code model memo", NoSync: true, TempPattern: tempPattern(stdMemoFile)}
	_, _ = o.WriteIfChanged(filepath.Join(build, stdMemoFile), data)
}

// formatStdMemo writes m as lines: the header, `targets` and the quoted
// names, a `file <key>` line per file, then `std` and `from`, quoted.
func formatStdMemo(m stdMemo) []byte {
	var b bytes.Buffer
	b.WriteString(stdMemoHeader + "\ntargets")
	for _, t := range m.targets {
		b.WriteByte(' ')
		b.WriteString(strconv.Quote(t))
	}
	b.WriteByte('\n')
	for _, k := range m.files {
		b.WriteString("file " + k + "\n")
	}
	b.WriteString("std " + strconv.Quote(m.std.Std) + "\nfrom " + strconv.Quote(m.std.From) + "\n")
	return b.Bytes()
}

// parseStdMemo decodes formatStdMemo's lines; ok is false for anything
// else (another mlxbuild's form, a torn file), which is then decoded anew.
func parseStdMemo(data []byte) (m stdMemo, ok bool) {
	lines := strings.Split(string(data), "\n")
	if len(lines) < 5 || lines[0] != stdMemoHeader || lines[len(lines)-1] != "" {
		return stdMemo{}, false
	}
	lines = lines[1 : len(lines)-1]
	rest, found := strings.CutPrefix(lines[0], "targets")
	if !found {
		return stdMemo{}, false
	}
	for rest != "" {
		if rest, found = strings.CutPrefix(rest, " "); !found {
			return stdMemo{}, false
		}
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return stdMemo{}, false
		}
		t, _ := strconv.Unquote(q)
		m.targets = append(m.targets, t)
		rest = rest[len(q):]
	}
	n := len(lines)
	for _, l := range lines[1 : n-2] {
		k, found := strings.CutPrefix(l, "file ")
		if _, ok := fileid.KeyPath(k); !found || !ok {
			return stdMemo{}, false
		}
		m.files = append(m.files, k)
	}
	var err error
	if m.std.Std, err = quotedField(lines[n-2], "std "); err != nil {
		return stdMemo{}, false
	}
	if m.std.From, err = quotedField(lines[n-1], "from "); err != nil {
		return stdMemo{}, false
	}
	return m, true
}

// quotedField is the quoted value of line after prefix, and nothing else.
func quotedField(line, prefix string) (string, error) {
	rest, found := strings.CutPrefix(line, prefix)
	if !found {
		return "", strconv.ErrSyntax
	}
	return strconv.Unquote(rest)
}
