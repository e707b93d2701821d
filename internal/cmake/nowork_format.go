package cmake

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/fileid"
)

// encode is the record as the file holds it: a header, the Ninja line or
// the never line, one line per file ("f MODE SIZE MTIME CTIME INO DEV
// PATH", "a PATH" for an absent one, "d PATH" for the build directory
// itself; paths hold no line break), and an
// end line with the count, so a torn file is no record.
func (r noWorkRecord) encode() []byte {
	var b []byte
	b = append(b, noWorkHeader+"\ndir "...)
	b = strconv.AppendQuote(b, r.dir)
	b = append(b, '\n')
	if r.never != "" {
		b = append(b, "never "...)
		b = strconv.AppendQuote(b, r.never)
	} else {
		b = append(b, "ninja "...)
		b = strconv.AppendQuote(b, r.ninja)
		b = append(b, ' ')
		b = strconv.AppendQuote(b, r.ninjaPath)
	}
	b = append(b, '\n')
	for _, f := range r.files {
		if f.buildDir {
			b = append(b, "d "...)
			b = append(b, f.path...)
			b = append(b, '\n')
			continue
		}
		if !f.present {
			b = append(b, "a "...)
		} else {
			b = append(b, "f "...)
			for _, n := range []uint64{uint64(f.id.Mode), uint64(f.id.Size), uint64(f.id.Mtime), uint64(f.id.Ctime), f.id.Ino, f.id.Dev} {
				b = strconv.AppendUint(b, n, 10)
				b = append(b, ' ')
			}
		}
		b = append(b, f.path...)
		b = append(b, '\n')
	}
	b = append(b, "end "...)
	b = strconv.AppendInt(b, int64(len(r.files)), 10)
	return append(b, '\n')
}

// decodeNoWorkRecord reads a record; any doubt is an error, and the
// caller then asks Ninja.
func decodeNoWorkRecord(data []byte) (noWorkRecord, error) {
	var r noWorkRecord
	text := string(data)
	if !strings.HasSuffix(text, "\n") {
		return r, fmt.Errorf("the record ends inside a line")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if lines[0] != noWorkHeader {
		return r, fmt.Errorf("line 1: not a no-work record")
	}
	if len(lines) < 4 {
		return r, fmt.Errorf("line %d: the record ends without its end line", len(lines)+1)
	}
	dir, ok := unquoteExact(strings.TrimPrefix(lines[1], "dir "))
	if !strings.HasPrefix(lines[1], "dir ") || !ok || dir == "" {
		return r, fmt.Errorf("line 2: %q does not name the build directory", lines[1])
	}
	r.dir = dir
	head := lines[2]
	switch {
	case strings.HasPrefix(head, "never "):
		why, ok := unquoteExact(strings.TrimPrefix(head, "never "))
		if !ok || why == "" {
			return r, fmt.Errorf("line 3: %q is not a quoted reason", head)
		}
		r.never = why
	case strings.HasPrefix(head, "ninja "):
		rest := strings.TrimPrefix(head, "ninja ")
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return r, fmt.Errorf("line 3: %q does not name Ninja", head)
		}
		var ok1, ok2 bool
		r.ninja, ok1 = unquoteExact(q)
		r.ninjaPath, ok2 = unquoteExact(strings.TrimPrefix(rest[len(q):], " "))
		if !ok1 || !ok2 || r.ninja == "" || r.ninjaPath == "" || rest[len(q)] != ' ' {
			return r, fmt.Errorf("line 3: %q does not name Ninja", head)
		}
	default:
		return r, fmt.Errorf("line 3: %q is neither a ninja nor a never line", head)
	}
	body, last := lines[3:len(lines)-1], lines[len(lines)-1]
	if n, ok := uintExact(strings.TrimPrefix(last, "end ")); !strings.HasPrefix(last, "end ") || !ok || n != uint64(len(body)) {
		return r, fmt.Errorf("line %d: %q is not the end line of %d files", len(lines), last, len(body))
	}
	r.files = make([]recordedFile, len(body))
	for i, l := range body {
		f, err := decodeRecordedFile(l)
		if err != nil {
			return r, fmt.Errorf("line %d: %w", i+4, err)
		}
		r.files[i] = f
	}
	return r, nil
}

// decodeRecordedFile reads one file line of a record.
func decodeRecordedFile(l string) (recordedFile, error) {
	if p, ok := strings.CutPrefix(l, "d "); ok {
		if p == "" {
			return recordedFile{}, fmt.Errorf("a directory without a path")
		}
		return recordedFile{path: p, buildDir: true}, nil
	}
	if p, ok := strings.CutPrefix(l, "a "); ok {
		if p == "" {
			return recordedFile{}, fmt.Errorf("an absent file without a path")
		}
		return recordedFile{path: p}, nil
	}
	rest, ok := strings.CutPrefix(l, "f ")
	if !ok {
		return recordedFile{}, fmt.Errorf("%q is not a file line", l)
	}
	var n [6]uint64
	for i := range n {
		field, after, ok := strings.Cut(rest, " ")
		v, isNum := uintExact(field)
		if !ok || !isNum {
			return recordedFile{}, fmt.Errorf("%q: field %d is not a number", l, i+1)
		}
		n[i], rest = v, after
	}
	if rest == "" || n[0] > 0xffffffff || n[1] > 1<<63-1 || n[2] > 1<<63-1 || n[3] > 1<<63-1 {
		return recordedFile{}, fmt.Errorf("%q is not a file line", l)
	}
	return recordedFile{path: rest, present: true, id: fileid.Stat{Mode: uint32(n[0]), Size: int64(n[1]), Mtime: int64(n[2]), Ctime: int64(n[3]), Ino: n[4], Dev: n[5]}}, nil
}

// writeNoWorkRecord replaces dir's record. It is a cache of Ninja's
// answer, remade from Ninja when lost, so it skips the fsync.
func writeNoWorkRecord(dir string, rec noWorkRecord) error {
	return atomicfile.Options{Perm: 0o644, NoSync: true, TempPattern: ".tmp-" + noWorkRecordFile + "-*", What: "no-work record"}.
		Write(filepath.Join(dir, noWorkRecordFile), rec.encode())
}

// unquoteExact unquotes s when it is exactly how strconv.Quote writes its
// value: a record is read only in the form it is written.
func unquoteExact(s string) (string, bool) {
	v, err := strconv.Unquote(s)
	return v, err == nil && strconv.Quote(v) == s
}

// uintExact reads a decimal as strconv.FormatUint writes it: digits only,
// no leading zero but for 0 itself.
func uintExact(s string) (uint64, bool) {
	if s == "" || len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil
}
