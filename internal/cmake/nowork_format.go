package cmake

import (
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/memo"
)

// entry is the record as an internal/memo entry: keys name the build
// directory and the Ninja line (or the never line), and each file is a
// value, its path and its identity ("MODE SIZE MTIME CTIME INO DEV", or
// "absent", or "dir" for the build directory itself). The files are values,
// not the entry's file lines: their identity is stat's through links, as
// Ninja sees them, and a check of over a thousand of them takes holds'
// workers and per-folder stats.
func (r noWorkRecord) entry() memo.Entry {
	e := memo.Entry{Keys: [][2]string{{"dir", r.dir}}, Values: make([][2]string, 0, len(r.files))}
	if r.never != "" {
		e.Keys = append(e.Keys, [2]string{"never", r.never})
	} else {
		e.Keys = append(e.Keys, [2]string{"ninja", r.ninja}, [2]string{"ninja-path", r.ninjaPath})
	}
	for _, f := range r.files {
		e.Values = append(e.Values, [2]string{f.path, f.identity()})
	}
	return e
}

// identity is f's value in the record.
func (f recordedFile) identity() string {
	if f.buildDir {
		return "dir"
	}
	if !f.present {
		return "absent"
	}
	b := make([]byte, 0, 80)
	for i, n := range [...]uint64{uint64(f.id.Mode), uint64(f.id.Size), uint64(f.id.Mtime), uint64(f.id.Ctime), f.id.Ino, f.id.Dev} {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendUint(b, n, 10)
	}
	return string(b)
}

// encode is the record as the file holds it.
func (r noWorkRecord) encode() []byte { return memo.Format(noWorkKind, r.entry()) }

// decodeNoWorkRecord reads a record; any doubt is an error, and the
// caller then asks Ninja.
func decodeNoWorkRecord(text string) (noWorkRecord, error) {
	var r noWorkRecord
	e, ok := memo.ParseString(noWorkKind, text)
	if !ok || len(e.Env) > 0 || len(e.Files) > 0 {
		return r, errors.New("not a no-work record")
	}
	k := e.Keys
	switch {
	case len(k) == 2 && k[0][0] == "dir" && k[1][0] == "never" && k[1][1] != "":
		r.never = k[1][1]
	case len(k) == 3 && k[0][0] == "dir" && k[1][0] == "ninja" && k[2][0] == "ninja-path" && k[1][1] != "" && k[2][1] != "":
		r.ninja, r.ninjaPath = k[1][1], k[2][1]
	default:
		return r, fmt.Errorf("keys %q do not name the build directory and Ninja", k)
	}
	if r.dir = k[0][1]; r.dir == "" {
		return r, errors.New("no build directory")
	}
	r.files = make([]recordedFile, len(e.Values))
	for i, kv := range e.Values {
		f, err := decodeRecordedFile(kv[0], kv[1])
		if err != nil {
			return r, fmt.Errorf("file %d: %w", i+1, err)
		}
		r.files[i] = f
	}
	return r, nil
}

// decodeRecordedFile reads one file of a record: its path and identity.
func decodeRecordedFile(p, identity string) (recordedFile, error) {
	switch {
	case p == "":
		return recordedFile{}, errors.New("a file without a path")
	case identity == "dir":
		return recordedFile{path: p, buildDir: true}, nil
	case identity == "absent":
		return recordedFile{path: p}, nil
	}
	var n [6]uint64
	rest := identity
	for i := range n {
		field, tail, more := strings.Cut(rest, " ")
		if more != (i < len(n)-1) {
			return recordedFile{}, fmt.Errorf("%q is not an identity", identity)
		}
		v, ok := uintExact(field)
		if !ok {
			return recordedFile{}, fmt.Errorf("%q: field %d is not a number", identity, i+1)
		}
		n[i], rest = v, tail
	}
	if n[0] > 0xffffffff || n[1] > 1<<63-1 || n[2] > 1<<63-1 || n[3] > 1<<63-1 {
		return recordedFile{}, fmt.Errorf("%q is not an identity", identity)
	}
	return recordedFile{path: p, present: true, id: memo.Stat{Mode: uint32(n[0]), Size: int64(n[1]), Mtime: int64(n[2]), Ctime: int64(n[3]), Ino: n[4], Dev: n[5]}}, nil
}

// writeNoWorkRecord replaces dir's record. It is a cache of Ninja's
// answer, remade from Ninja when lost, so it skips the fsync; unlike the
// other memos, a failure is reported (the caller says the record was not
// made).
func writeNoWorkRecord(dir string, rec noWorkRecord) error {
	return atomicfile.Options{Perm: 0o644, NoSync: true, TempPattern: ".tmp-" + noWorkRecordFile + "-*", What: "no-work record"}.
		Write(filepath.Join(dir, noWorkRecordFile), rec.encode())
}

// uintExact reads a decimal as strconv.FormatUint writes it: digits only,
// no sign, no leading zero but for 0 itself. ParseUint in base 10 takes
// digits only, so a leading zero is the one other spelling left; it is
// refused without writing the number back (a string per field, six per
// file of a no-op's record).
func uintExact(s string) (uint64, bool) {
	v, err := strconv.ParseUint(s, 10, 64)
	return v, err == nil && (s[0] != '0' || len(s) == 1)
}
