package cmake

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/fileid"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// The no-work record lets a no-op build skip Ninja. Ninja's answer to
// `ninja -n` is a function of the files it reads and stats: its manifests,
// .ninja_log and .ninja_deps, and every node of its graph with the
// dependencies its deps log adds. After a dry run found no work, the
// record lists the identity (fileid.StatFollowed: size, mtime, ctime, inode,
// device, through links, as Ninja's stat sees them) of each of those
// files, and of the Ninja binary; while every one keeps it, Ninja would
// find no work again, so the next no-op asks the record, not Ninja.
//
// A record is made only when it is exact:
//   - the nodes come from Ninja itself (-t targets all, -t inputs, -t deps),
//     a superset of what it stats (every edge, not only the default ones);
//   - a graph whose edges read files that are not nodes (a depfile with no
//     deps log), grow while building (dyndep) or keep their logs elsewhere
//     (builddir) gets a "never" record instead, redone when a manifest
//     changes;
//   - no file may have changed since the dry run began: every file's ctime
//     must be older than that of the lock file, written when the build took
//     the lock, before Ninja started (git's racy rule, with the lock file
//     as the index). A file deleted after Ninja looked leaves no ctime, so
//     an absent file's nearest existing directory must be older too. A
//     file on another file system, whose timestamps may be coarser, must
//     be older by a second.
const (
	noWorkRecordFile = "mlxbuild-nowork"
	noWorkHeader     = "mlxbuild ninja no-work 1"
)

// otherDeviceSlack is how much older than the sentinel a file on another
// file system must be: its timestamps may be kept to the second.
const otherDeviceSlack = time.Second

// noWorkRecord is a decoded record.
type noWorkRecord struct {
	// dir is the build directory the record was made in: a copy of the
	// directory (its paths are absolute) never answers for itself.
	dir              string
	ninja, ninjaPath string // the program as CMake names it, and the file found for it
	never            string // why this graph gets no record; "" for a record of files
	files            []recordedFile
}

// recordedFile is one file's identity in a record; present is false for a
// file that was absent.
type recordedFile struct {
	path    string
	present bool
	id      fileid.Stat
}

// lookAt reads p's identity now.
func lookAt(p string) recordedFile {
	id, ok := fileid.StatFollowed(p)
	return recordedFile{path: p, present: ok, id: id}
}

// encode is the record as the file holds it: a header, the Ninja line or
// the never line, one line per file ("f MODE SIZE MTIME CTIME INO DEV
// PATH", or "a PATH" for an absent one; paths hold no line break), and an
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

// holds reports whether every file of r keeps the identity it recorded.
// A real MLX build has over a thousand nodes, a stat each: a few workers
// share them (stat is a system call, so they overlap on every core), and
// all stop at the first change.
func (r noWorkRecord) holds() bool {
	workers := min(runtime.GOMAXPROCS(0), (len(r.files)+statsPerWorker-1)/statsPerWorker, maxStatWorkers)
	if workers <= 1 {
		return allHold(r.files, nil)
	}
	var changed atomic.Bool
	var wg sync.WaitGroup
	chunk := (len(r.files) + workers - 1) / workers
	for start := 0; start < len(r.files); start += chunk {
		part := r.files[start:min(start+chunk, len(r.files))]
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !allHold(part, &changed) {
				changed.Store(true)
			}
		}()
	}
	wg.Wait()
	return !changed.Load()
}

// statsPerWorker and maxStatWorkers size holds' workers: below a few
// hundred files a goroutine costs more than it saves.
const (
	statsPerWorker = 256
	maxStatWorkers = 4
)

// allHold reports whether every file keeps its identity, giving up early
// once stop is set (another worker found a change).
func allHold(files []recordedFile, stop *atomic.Bool) bool {
	for i, f := range files {
		if stop != nil && i%32 == 0 && stop.Load() {
			return false
		}
		if lookAt(f.path) != f {
			return false
		}
	}
	return true
}

// readNoWorkRecord reads dir's record; ok is false when there is none or it
// cannot be read.
func readNoWorkRecord(dir string) (noWorkRecord, bool) {
	data, err := os.ReadFile(filepath.Join(dir, noWorkRecordFile))
	if err != nil {
		return noWorkRecord{}, false
	}
	r, err := decodeNoWorkRecord(data)
	return r, err == nil && r.dir == dir
}

// answersNoWork reports whether r stands for a dry run of dir with no work
// (every file unchanged, and the same Ninja).
func (r noWorkRecord) answersNoWork() bool {
	if r.never != "" || !r.holds() {
		return false
	}
	// CMakeCache.txt, where ninjaFor finds the program, is among the
	// files, so it is unchanged: only a name looked up on PATH can lead
	// elsewhere now.
	path := r.ninja
	if !filepath.IsAbs(path) {
		var err error
		if path, err = exec.LookPath(path); err != nil {
			return false
		}
	}
	return path == r.ninjaPath
}

// olderThan reports whether f's file was last changed before since: the
// racy rule, by ctime, with slack for another file system. An absent file
// is judged by its nearest existing directory.
func olderThan(f, since recordedFile) bool {
	for !f.present {
		parent := filepath.Dir(f.path)
		if parent == f.path {
			return false
		}
		f = lookAt(parent)
	}
	limit := since.id.Ctime
	if f.id.Dev != since.id.Dev {
		limit -= int64(otherDeviceSlack)
	}
	return f.id.Ctime < limit
}

// rememberNoWork makes dir's record after a dry run with no work, which
// began after since (the lock file) was written; ninja is the program it
// ran. It returns why no record of files was made ("" when one was), and
// an error only when the record could not be written.
func rememberNoWork(ctx context.Context, dir, ninja string, since recordedFile) (string, error) {
	if !since.present {
		return "no lock file to compare times with", nil
	}
	ninjaPath, err := exec.LookPath(ninja)
	if err != nil {
		return "Ninja is not found", nil
	}
	if ninjaPath, err = filepath.Abs(ninjaPath); err != nil {
		return "Ninja's path", nil
	}
	scan, err := scanManifests(dir)
	if err != nil {
		return err.Error(), nil
	}
	manifests := make([]string, len(scan.files))
	for i, f := range scan.files {
		manifests[i] = joinBuild(dir, f)
	}
	// CMakeCache.txt names the Ninja program (ninjaFor), which the record
	// answers for without reading it.
	paths := append(manifests, joinBuild(dir, ".ninja_log"), joinBuild(dir, ".ninja_deps"), joinBuild(dir, "CMakeCache.txt"), ninjaPath)
	rec := noWorkRecord{dir: dir, ninja: ninja, ninjaPath: ninjaPath}
	if scan.refuse == "" {
		nodes, err := graphNodes(ctx, dir, ninja)
		switch {
		case ctx.Err() != nil:
			return "interrupted", nil
		case err != nil:
			// A Ninja without these tools (before 1.11), or output
			// they cannot be read from: not asked again until the
			// graph, its logs or Ninja change.
			scan.refuse = err.Error()
		default:
			for _, n := range nodes {
				paths = append(paths, joinBuild(dir, n))
			}
		}
	}
	if scan.refuse != "" {
		// Redone only when a manifest, a log or Ninja changes: until
		// then, no run reads the manifests or asks Ninja's tools again.
		rec = noWorkRecord{dir: dir, never: scan.refuse}
	}
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		if strings.ContainsAny(p, "\n\r") {
			return "a node's path holds a line break", nil
		}
		f := lookAt(p)
		if !olderThan(f, since) {
			return p + " changed during the dry run", nil
		}
		rec.files = append(rec.files, f)
	}
	if scan.refuse != "" {
		return scan.refuse, writeNoWorkRecord(dir, rec)
	}
	return "", writeNoWorkRecord(dir, rec)
}

// graphNodes lists every node of dir's graph, as Ninja's tools print them:
// each edge's outputs, their inputs of every kind, and the dependencies
// the deps log holds.
func graphNodes(ctx context.Context, dir, ninja string) ([]string, error) {
	tool := func(args ...string) ([]byte, error) {
		res, err := proc.RunLeaf(ctx, proc.Cmd{Path: ninja, Args: append([]string{"-C", dir, "-t"}, args...)})
		if err != nil {
			return nil, fmt.Errorf("ninja -t %s: %w", args[0], err)
		}
		if !bytes.HasPrefix(res.Stdout, []byte("ninja: Entering directory")) {
			return res.Stdout, nil
		}
		_, rest, _ := bytes.Cut(res.Stdout, []byte("\n"))
		return rest, nil
	}
	out, err := tool("targets", "all")
	if err != nil {
		return nil, err
	}
	outputs, err := parseTargetsAll(out)
	if err != nil {
		return nil, err
	}
	nodes := outputs
	if len(outputs) > 0 {
		if out, err = tool(append([]string{"inputs"}, outputs...)...); err != nil {
			return nil, err
		}
		inputs, err := parseInputs(out)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, inputs...)
	}
	if out, err = tool("deps"); err != nil {
		return nil, err
	}
	deps, err := parseDeps(out)
	if err != nil {
		return nil, err
	}
	return append(nodes, deps...), nil
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
