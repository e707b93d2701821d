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

// A DryRun is `ninja -n` on a configured build directory, started while
// mlxbuild still checks its own inputs. A no-op build then costs one Ninja
// no-op alongside those checks instead of after them, and no supervisor
// (a dry run runs no command, so it is a leaf; proc.RunLeaf). Its answer
// holds only if nothing Ninja reads changed after it started: the caller
// trusts it only when it held the cache's lock before starting it and then
// changed nothing (no file of the tree written, no configure).
//
// Where the build directory's no-work record still holds (nowork.go), the
// record answers and Ninja does not run at all; after a dry run that found
// no work, Remember makes that record for the next no-op.
type DryRun struct {
	dir, ninja string
	args       []string
	cancel     context.CancelFunc
	done       chan struct{}
	out        []byte
	err        error
	recorded   int          // files the record checked, when it answered; 0 when Ninja did
	since      recordedFile // the lock file as it was when Ninja started
	never      bool         // the record says this graph gets none, and still holds
}

// StartDryRun asks the no-work record of dir, and where it does not hold
// starts `ninja -n -C dir` (no command runs, so no launcher settings are
// needed). It returns nil when dir has no build.ninja: there is nothing to
// ask before the first configure.
//
// lock is the lock file the caller wrote when it took the lock that keeps
// other builds out of dir, on the same file system: a file whose ctime is
// older than the lock's was not changed while Ninja looked, so a record
// may be made of it (the racy rule, see nowork.go). With lock "" no record
// is made.
func StartDryRun(ctx context.Context, dir, lock string) *DryRun {
	if !Configured(dir) {
		return nil
	}
	ctx, cancel := context.WithCancel(ctx)
	d := &DryRun{dir: dir, args: []string{"-n", "-C", dir}, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(d.done)
		rec, ok := readNoWorkRecord(dir)
		if ok && rec.answersNoWork() {
			d.ninja, d.recorded, d.out = rec.ninja, len(rec.files), []byte("ninja: no work to do.\n")
			return
		}
		d.never = ok && rec.never != "" && rec.holds()
		ninja, err := ninjaFor(dir)
		if err != nil {
			d.err = err
			return
		}
		d.ninja = ninja
		if !d.never && lock != "" {
			d.since = lookAt(lock)
		}
		full := append(os.Environ(), "NINJA_STATUS="+ninjaStatus)
		res, err := proc.RunLeaf(ctx, proc.Cmd{Path: ninja, Args: d.args, Env: full})
		d.out, d.err = append(res.Stdout, res.Stderr...), err
	}()
	return d
}

// Recorded says how many files the no-work record checked when it
// answered instead of Ninja; 0 when Ninja ran (or has not answered).
func (d *DryRun) Recorded() int {
	if d == nil {
		return 0
	}
	<-d.done
	return d.recorded
}

// Remember makes the no-work record after this dry run found no work and
// the caller trusted it (nothing written since it started). It costs three
// runs of Ninja's query tools, once; a graph the record cannot stand for
// is noted so, and not looked at again until a manifest, a log or Ninja
// changes. Failing
// to make the record loses nothing: the next no-op asks Ninja.
func (d *DryRun) Remember(ctx context.Context) error {
	if d == nil || !d.NoWork() || d.recorded > 0 || d.never {
		return nil
	}
	_, err := rememberNoWork(ctx, d.dir, d.ninja, d.since)
	return err
}

// NoWork waits for the dry run and says whether Ninja found nothing to do.
// Anything else it printed (an edge, a CMake re-run, a warning, an error)
// means no: the real build then runs and shows it.
func (d *DryRun) NoWork() bool {
	if d == nil {
		return false
	}
	<-d.done
	return d.err == nil && dryRunNoWork(d.out)
}

// Stop ends the dry run if it still runs and waits for it; a nil DryRun
// is stopped already.
func (d *DryRun) Stop() {
	if d == nil {
		return
	}
	d.cancel()
	<-d.done
}

// WriteLog makes path the build log of this no-op, as Build writes one:
// the command, then Ninja's output; a log that says so already stays.
func (d *DryRun) WriteLog(path string) error {
	<-d.done
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create the build log's directory: %w", err)
	}
	var b bytes.Buffer
	if d.recorded > 0 {
		fmt.Fprintf(&b, "# %s: no file Ninja reads changed (%d files) since `%s %s` found no work\n", filepath.Join(d.dir, noWorkRecordFile), d.recorded, d.ninja, strings.Join(d.args, " "))
	} else {
		fmt.Fprintf(&b, "# %s %s\n", d.ninja, strings.Join(d.args, " "))
	}
	b.Write(d.out)
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
