package cmake

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// A NoWorkCheck asks a configured build directory's no-work record
// (nowork.go), in the background, whether Ninja would find nothing to do:
// a build starts it once it holds the cache's lock and reads its answer
// once its own decision says nothing is to be redone. The answer holds
// only if nothing Ninja reads changed meanwhile: the caller trusts it
// only when it changed nothing itself (no file of the tree written, no
// configure). Where the record does not answer, the build runs Ninja;
// when Ninja then says it had no work, Remember makes the record for the
// next no-op.
type NoWorkCheck struct {
	dir   string
	done  chan struct{}
	ninja string // the program the record names, when it answered
	files int    // files the record checked, when it answered; 0 otherwise
	never bool   // the record says this graph gets none, and still holds
}

// CheckNoWork starts asking dir's no-work record. It returns nil when dir
// has no build.ninja: there is nothing to ask before the first configure.
func CheckNoWork(dir string) *NoWorkCheck {
	if !Configured(dir) {
		return nil
	}
	c := &NoWorkCheck{dir: dir, done: make(chan struct{})}
	go func() {
		defer close(c.done)
		rec, ok := readNoWorkRecord(dir)
		if ok && rec.answersNoWork() {
			c.ninja, c.files = rec.ninja, len(rec.files)
			return
		}
		c.never = ok && rec.never != "" && rec.holds()
	}()
	return c
}

// Recorded waits for the check and says how many files the record checked
// when it answers that Ninja has no work; 0 when Ninja must be asked.
func (c *NoWorkCheck) Recorded() int {
	if c == nil {
		return 0
	}
	<-c.done
	return c.files
}

// Remember makes the no-work record after res, a build that ran Ninja on
// the checked directory, found no work, and the caller trusted it (it
// changed nothing before Ninja ran). lock is the lock file the caller
// wrote when it took the lock that keeps other builds out of the
// directory, on the same file system, and has not written since: a file
// whose ctime is older than the lock's was not changed while Ninja
// looked (the racy rule, see nowork.go). It costs three runs of Ninja's
// query tools, once; a graph the record cannot stand for is noted so, and
// not looked at again until a manifest, a log or Ninja changes. Failing
// to make the record loses nothing: the next no-op runs Ninja.
func (c *NoWorkCheck) Remember(ctx context.Context, res BuildResult, lock string) error {
	if c == nil || !res.NoWork || c.Recorded() > 0 || c.never {
		return nil
	}
	ninja, err := ninjaFor(c.dir)
	if err != nil {
		return nil
	}
	_, err = rememberNoWork(ctx, c.dir, ninja, lookAt(lock))
	return err
}

// WriteLog makes path the build log of a no-op the record answered, as
// Build writes one; a log that says so already stays.
func (c *NoWorkCheck) WriteLog(path string) error {
	<-c.done
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create the build log's directory: %w", err)
	}
	var b bytes.Buffer
	fmt.Fprintf(&b, "# %s: no file Ninja reads changed (%d files) since `%s -C %s` found no work\n", filepath.Join(c.dir, noWorkRecordFile), c.files, c.ninja, c.dir)
	b.WriteString("ninja: no work to do.\n")
	// The last no-op wrote the same lines: leave them.
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b.Bytes()) {
		return nil
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write the build log %s: %w", path, err)
	}
	return nil
}

// saidNoWork reads Ninja's output: true only when it says "no work to do"
// and nothing but the directory it entered besides.
func saidNoWork(out string) bool {
	noWork := false
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case line == "ninja: no work to do." && !noWork:
			noWork = true
		case strings.HasPrefix(line, "ninja: Entering directory `") && strings.HasSuffix(line, "'") && !noWork:
		default:
			return false
		}
	}
	return noWork
}
