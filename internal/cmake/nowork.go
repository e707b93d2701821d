package cmake

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/mlxbuild/mlxbuild/internal/memo"
)

// The no-work record lets a no-op build skip Ninja. Ninja's answer to
// `ninja -n` is a function of the files it reads and stats: its manifests,
// .ninja_log and .ninja_deps, and every node of its graph with the
// dependencies its deps log adds. After a dry run found no work, the
// record lists the identity (memo.StatFollowed: size, mtime, ctime, inode,
// device, through links, as Ninja's stat sees them) of each of those
// files, and of the Ninja binary; while every one keeps it, Ninja would
// find no work again, so the next no-op asks the record, not Ninja.
// nowork_format.go writes and reads the record's file, nowork_remember.go
// makes it.
//
// A record is made only when it is exact:
//   - the nodes come from Ninja itself (-t targets all, -t inputs, -t deps),
//     a superset of what it stats (every edge, not only the default ones);
//   - a graph whose edges read files that are not nodes (a depfile with no
//     deps log), grow while building (dyndep) or keep their logs elsewhere
//     (builddir), or whose Ninja lacks the tools, gets a "never" record
//     instead, redone when a manifest, a log or Ninja changes;
//   - no file may have changed since the dry run began: every file's ctime
//     must be older than that of the lock file, written when the build took
//     the lock, before Ninja started (git's racy rule, with the lock file
//     as the index). A file deleted after Ninja looked leaves no ctime, so
//     an absent file's nearest existing directory must be older too. A
//     file on another file system, whose timestamps may be coarser, must
//     be older by a second.
//
// The record is an internal/memo entry of kind noWorkKind; its files come
// folder by folder, which allHold's stats relative to each folder rely on.
// A record of an older form is a miss: Ninja runs, finds no work, and the
// record is made anew.
const (
	noWorkRecordFile = "mlxbuild-nowork"
	noWorkKind       = "ninja-no-work"
)

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
	id      memo.Stat
	// buildDir marks the build directory itself as a node (buildDirNode):
	// it must stay a directory; its times are not compared.
	buildDir bool
}

// lookAt reads p's identity now.
func lookAt(p string) recordedFile {
	id, ok := memo.StatFollowed(p)
	return recordedFile{path: p, present: ok, id: id}
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
// once stop is set (another worker found a change). A record keeps its
// files folder by folder (rememberNoWork), so each is stat-ed relative to
// its folder, opened once (memo.Folders).
func allHold(files []recordedFile, stop *atomic.Bool) bool {
	var folders memo.Folders
	defer folders.Close()
	for i, f := range files {
		if stop != nil && i%32 == 0 && stop.Load() {
			return false
		}
		if f.buildDir {
			if st, err := os.Stat(f.path); err != nil || !st.IsDir() {
				return false
			}
			continue
		}
		id, ok := folders.StatFollowed(f.path)
		if ok != f.present || ok && id != f.id {
			return false
		}
	}
	return true
}

// readNoWorkRecord reads dir's record; ok is false when there is none or it
// cannot be read.
func readNoWorkRecord(dir string) (noWorkRecord, bool) {
	text, err := memo.ReadString(filepath.Join(dir, noWorkRecordFile))
	if err != nil {
		return noWorkRecord{}, false
	}
	r, err := decodeNoWorkRecord(text)
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
