package overlays

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// shapeFixture is the real shape: MLX's 921 files as pristine, and two
// variants of the 121-file ROCm overlay (B drops every third file, so runs
// that switch between them restore and remove files too).
type shapeFixture struct {
	dir, pristine, tree, manifest string
	overlays                      [2]string
	p                             files
	o                             [2]files
}

func newShapeFixture(t *testing.T) *shapeFixture {
	t.Helper()
	d := fastTempDir(t)
	f := &shapeFixture{dir: d, pristine: filepath.Join(d, "mlx"), tree: filepath.Join(d, "cache", "rocm", "tree"),
		manifest: filepath.Join(d, "cache", "rocm", "tree.manifest")}
	f.p = writeShape(t, f.pristine, loadShape(t, "mlx-tree-shape.tsv"), 0)
	ov := loadShape(t, "rocm-overlay-shape.tsv")
	f.overlays[0] = filepath.Join(d, "overlay-a")
	f.o[0] = writeShape(t, f.overlays[0], ov, 1)
	var b []shapeFile
	for i, s := range ov {
		if i%3 != 0 {
			b = append(b, s)
		}
	}
	f.overlays[1] = filepath.Join(d, "overlay-b")
	f.o[1] = writeShape(t, f.overlays[1], b, 2)
	return f
}

// child runs the test binary as a materializing child (see runChild).
func (f *shapeFixture) child(variant int, lock string, extra ...string) proc.Cmd {
	env := append(os.Environ(), childEnv+"=materialize", "CHILD_PRISTINE="+f.pristine, "CHILD_OVERLAY="+f.overlays[variant],
		"CHILD_TREE="+f.tree, "CHILD_MANIFEST="+f.manifest, "CHILD_LOCK="+lock)
	return proc.Cmd{Path: os.Args[0], Env: append(env, extra...)}
}

// readyWriter closes ready when the child says "ready".
type readyWriter struct {
	once  sync.Once
	ready chan struct{}
	at    time.Time // when ready was closed; read only after <-ready
	buf   bytes.Buffer
}

func (w *readyWriter) Write(b []byte) (int, error) {
	w.buf.Write(b)
	if bytes.Contains(w.buf.Bytes(), []byte("ready\n")) {
		w.once.Do(func() {
			w.at = time.Now()
			close(w.ready)
		})
	}
	return len(b), nil
}

// runKilled starts a child and stops it (with its whole tree) delay after it
// said ready (0: let it finish). It reports whether the child was killed
// before it finished, and how long it worked.
func runKilled(t *testing.T, c proc.Cmd, delay time.Duration) (killed bool, worked time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w := &readyWriter{ready: make(chan struct{})}
	c.Stdout = w
	go func() {
		select {
		case <-w.ready:
		case <-ctx.Done():
			return
		}
		if delay > 0 {
			time.Sleep(delay)
			// proc.Run stops the child: SIGTERM, which ends it on the
			// spot, as SIGKILL would (it handles no signal, so no
			// deferred cleanup runs), then SIGKILL to what is left.
			cancel()
		}
	}()
	res, err := proc.Run(ctx, c)
	if res.Interrupted {
		return true, 0
	}
	if err != nil {
		t.Fatalf("child failed: %v", err)
	}
	<-w.ready
	return false, time.Since(w.at)
}

// sums maps each path to the hashes of every content it may validly hold.
func (f *shapeFixture) sums() map[string]map[[32]byte]bool {
	out := map[string]map[[32]byte]bool{}
	for _, fs := range []files{f.p, f.o[0], f.o[1]} {
		for p, c := range fs {
			if out[p] == nil {
				out[p] = map[[32]byte]bool{}
			}
			out[p][sha256.Sum256([]byte(c))] = true
		}
	}
	return out
}

// checkNotTorn fails if any final path of the tree holds something that is
// not one whole version of that file.
func (f *shapeFixture) checkNotTorn(t *testing.T, valid map[string]map[[32]byte]bool) (temps int) {
	t.Helper()
	filepath.WalkDir(f.tree, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if strings.HasPrefix(d.Name(), tmpPrefix) {
			temps++
			return nil
		}
		rel, _ := filepath.Rel(f.tree, path)
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !valid[filepath.ToSlash(rel)][sha256.Sum256(data)] {
			t.Fatalf("%s holds %d bytes that are no whole version of it (torn)", rel, len(data))
		}
		return nil
	})
	return temps
}

func TestKill9AtRandomMomentsConverges(t *testing.T) {
	f := newShapeFixture(t)
	valid := f.sums()
	want := [2]files{merged(f.p, f.o[0]), merged(f.p, f.o[1])}
	// Calibrate how long a cold run and a switching run work once started;
	// then adapt each bound to the machine's speed of the moment (shrink it
	// when a run finished before its kill, grow it when the kill landed), so
	// that about half the kills land mid-work, at moments spread over the
	// whole run.
	_, cold := runKilled(t, f.child(0, "", "CHILD_READY=1"), 0)
	_, switching := runKilled(t, f.child(1, "", "CHILD_READY=1"), 0)
	sameFiles(t, readFiles(t, f.tree), want[1])
	seed := uint64(time.Now().UnixNano())
	r := rand.New(rand.NewPCG(seed, 4))
	t.Logf("cold run %v, switching run %v, seed %d", cold, switching, seed)
	kills, temps, variant := 0, 0, 1
	for i := 0; kills < 110; i++ {
		if i > 600 {
			t.Fatalf("only %d of %d runs were killed before they finished", kills, i)
		}
		variant = r.IntN(2)
		bound := &switching
		if r.IntN(5) == 0 { // a cold run now and then: the whole tree is written
			os.RemoveAll(f.tree)
			bound = &cold
		}
		delay := time.Duration(r.Int64N(int64(*bound)+1)) + time.Microsecond
		killed, _ := runKilled(t, f.child(variant, "", "CHILD_READY=1"), delay)
		if killed {
			kills++
			*bound = *bound * 11 / 10
		} else {
			*bound = *bound * 8 / 10
		}
		temps += f.checkNotTorn(t, valid)
		if r.IntN(2) == 0 { // sometimes the next run is killed too, before it converges
			if _, _, err := Materialize(f.pristine, f.overlays[variant], f.tree, f.manifest, nil); err != nil {
				t.Fatal(err)
			}
			sameFiles(t, readFiles(t, f.tree), want[variant])
			if t.Failed() {
				t.Fatalf("run %d (delay %v, killed %v) did not converge", i, delay, killed)
			}
		}
	}
	if killed, _ := runKilled(t, f.child(variant, "", "CHILD_READY=1"), 0); killed {
		t.Fatal("the last run was killed")
	}
	sameFiles(t, readFiles(t, f.tree), want[variant])
	t.Logf("%d runs killed mid-work; %d temporary files were left by them and removed", kills, temps)
}

func TestFourConcurrentRunsUnderTheLock(t *testing.T) {
	f := newShapeFixture(t)
	lock := cache.For(filepath.Join(f.dir, "cache"), "rocm").Lock
	var wg sync.WaitGroup
	results := make([]proc.Result, 4)
	errs := make([]error, 4)
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i], errs[i] = proc.Run(context.Background(), f.child(0, lock))
		}()
	}
	wg.Wait()
	waited := 0
	for i, err := range errs {
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if bytes.Contains(results[i].Stderr, []byte("waiting for the lock held by pid ")) {
			waited++
		}
	}
	sameFiles(t, readFiles(t, f.tree), merged(f.p, f.o[0]))
	written := 0
	for _, r := range results {
		var w, rs, rm, u int
		fmt.Sscanf(string(r.Stdout), "written %d restored %d removed %d unchanged %d", &w, &rs, &rm, &u)
		written += w
	}
	// Exactly one run did the work; the others found it done.
	if want := len(merged(f.p, f.o[0])); written != want {
		t.Errorf("the four runs wrote %d files in all, want %d (one cold run)", written, want)
	}
	if waited == 0 {
		t.Error("no run reported waiting for the lock")
	}
}

func TestReadOnlyTreeFailsClearlyAndLosesNothing(t *testing.T) {
	f := newShapeFixture(t)
	if _, _, err := Materialize(f.pristine, f.overlays[0], f.tree, f.manifest, nil); err != nil {
		t.Fatal(err)
	}
	before := readFiles(t, f.tree)
	var msg string
	if os.Geteuid() == 0 {
		// Root ignores permissions: run the second materialization as nobody
		// (through setpriv), for whom the root-owned tree is read-only.
		for d := f.dir; d != "/"; d = filepath.Dir(d) {
			os.Chmod(d, 0o755)
		}
		os.Chmod(os.Args[0], 0o755)
		c := f.child(1, "")
		c.Args = append([]string{"--reuid=65534", "--regid=65534", "--clear-groups", c.Path}, c.Args...)
		c.Path = "setpriv"
		res, err := proc.Run(context.Background(), c)
		if err == nil {
			t.Fatal("materializing into a read-only tree succeeded")
		}
		msg = string(res.Stderr)
	} else {
		filepath.WalkDir(f.tree, func(p string, d fs.DirEntry, err error) error {
			if d.IsDir() {
				os.Chmod(p, 0o555)
			}
			return nil
		})
		defer filepath.WalkDir(f.tree, func(p string, d fs.DirEntry, err error) error {
			if d.IsDir() {
				os.Chmod(p, 0o755)
			}
			return nil
		})
		_, _, err := Materialize(f.pristine, f.overlays[1], f.tree, f.manifest, nil)
		if err == nil {
			t.Fatal("materializing into a read-only tree succeeded")
		}
		msg = err.Error()
	}
	if !strings.Contains(msg, "permission denied") || !strings.Contains(msg, f.tree) || !strings.Contains(msg, "writable") {
		t.Errorf("error %q does not name the tree, the cause and the fix", msg)
	}
	sameFiles(t, readFiles(t, f.tree), before)
	sameFiles(t, readFiles(t, f.overlays[1]), f.o[1])
	// Once writable again, the next run converges.
	if _, _, err := Materialize(f.pristine, f.overlays[1], f.tree, f.manifest, nil); err != nil {
		t.Fatal(err)
	}
	sameFiles(t, readFiles(t, f.tree), merged(f.p, f.o[1]))
}
