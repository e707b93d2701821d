package cmake

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// A NoWorkCheck answers, for a configured build directory, whether Ninja
// would find nothing to do. The no-work record (nowork.go) is asked in the
// background from the start: a build starts the check once it holds the
// cache's lock. Where the record does not answer, NoWork asks `ninja -n`
// itself, once, when the build's own decision redoes nothing: a leaf that
// runs no command, so it needs no supervisor, which the real Ninja does
// (docs/benchmarks.md, "The no-op decided once"). Either answer holds only
// if nothing Ninja reads changed meanwhile: the caller trusts it only when
// it changed nothing itself (no file of the tree written, no configure).
// After `ninja -n` found no work, Remember makes the record for the next
// no-op.
type NoWorkCheck struct {
	dir   string
	done  chan struct{}
	ninja string // the program that answered, as CMake names it
	files int    // files the record checked, when it answered; 0 otherwise
	never bool   // the record says this graph gets none, and still holds
	asked bool   // ninja -n ran
	out   []byte // what ninja -n said
	dry   bool   // ninja -n said it had no work
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

// Recorded waits for the record and says how many files it checked when
// it answers that Ninja has no work; 0 when it does not.
func (c *NoWorkCheck) Recorded() int {
	if c == nil {
		return 0
	}
	<-c.done
	return c.files
}

// NoWork says whether Ninja has nothing to do: the record's answer, else
// `ninja -n`'s, asked once. Anything else Ninja printed (an edge, a CMake
// re-run, a warning, an error) means no: the real build then runs and
// shows it.
func (c *NoWorkCheck) NoWork(ctx context.Context) bool {
	if c == nil {
		return false
	}
	if c.Recorded() > 0 {
		return true
	}
	if !c.asked {
		c.asked = true
		ninja, err := ninjaFor(c.dir)
		if err != nil {
			return false
		}
		c.ninja = ninja
		full := append(os.Environ(), "NINJA_STATUS="+ninjaStatus)
		res, err := proc.RunLeaf(ctx, proc.Cmd{Path: ninja, Args: []string{"-n", "-C", c.dir}, Env: full})
		c.out = append(res.Stdout, res.Stderr...)
		c.dry = err == nil && dryRunNoWork(c.out)
	}
	return c.dry
}

// Remember makes the no-work record after `ninja -n` found no work and
// the caller trusted it (it changed nothing before Ninja looked). lock is
// the lock file the caller wrote when it took the lock that keeps other
// builds out of the directory, on the same file system, and has not
// written since: a file whose ctime is older than the lock's was not
// changed while Ninja looked (the racy rule, see nowork.go); with lock ""
// no record is made. It costs three runs of Ninja's query tools, once; a
// graph the record cannot stand for is noted so, and not looked at again
// until a manifest, a log or Ninja changes. Failing to make the record
// loses nothing: the next no-op asks Ninja.
func (c *NoWorkCheck) Remember(ctx context.Context, lock string) error {
	if c == nil || !c.dry || c.never {
		return nil
	}
	since := recordedFile{}
	if lock != "" {
		since = lookAt(lock)
	}
	_, err := rememberNoWork(ctx, c.dir, c.ninja, since)
	return err
}

// WriteLog makes path the build log of the no-op NoWork answered, as Build
// writes one: the command (or the record that stood for it), then Ninja's
// output; a log that says so already stays.
func (c *NoWorkCheck) WriteLog(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create the build log's directory: %w", err)
	}
	var b bytes.Buffer
	if c.Recorded() > 0 {
		fmt.Fprintf(&b, "# %s: no file Ninja reads changed (%d files) since `%s -n -C %s` found no work\nninja: no work to do.\n", filepath.Join(c.dir, noWorkRecordFile), c.files, c.ninja, c.dir)
	} else {
		fmt.Fprintf(&b, "# %s -n -C %s\n", c.ninja, c.dir)
		b.Write(c.out)
	}
	// The last no-op wrote the same lines: leave them.
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, b.Bytes()) {
		return nil
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("write the build log %s: %w", path, err)
	}
	return nil
}

// dryRunNoWork reads `ninja -n -C DIR`'s output: true only when it says
// "no work to do" and nothing but the directory it entered besides.
func dryRunNoWork(out []byte) bool {
	noWork := false
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
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
