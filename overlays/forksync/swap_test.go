package forksync

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var errStopped = errors.New("stopped here by the test")

// swapCase prepares an interrupted-sync trial: the overlay as it was
// (backup), what an uninterrupted sync to the fork's next commit makes of
// it (want), and the overlay put back as it was.
type swapCase struct {
	f            *syncFixture
	c1           string
	backup, want snapshot
}

func newSwapCase(t *testing.T) *swapCase {
	t.Helper()
	f := newSyncFixture(t)
	c := &swapCase{f: f, c1: f.forkC1()}
	backup := filepath.Join(f.root, "backup")
	if err := os.CopyFS(backup, os.DirFS(f.overlay)); err != nil {
		t.Fatal(err)
	}
	c.backup = snap(t, backup)
	if _, err := Sync(context.Background(), withCommit(f.forkOpts, c.c1)); err != nil {
		t.Fatal(err)
	}
	c.want = snap(t, f.overlay)
	if err := os.RemoveAll(f.overlay); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(f.overlay, os.DirFS(backup)); err != nil {
		t.Fatal(err)
	}
	return c
}

// check asserts what an interrupted swap may leave (the staging directory
// never holds the old overlay), then that the next sync converges on want
// and leaves nothing beside the overlay.
func (c *swapCase) check(t *testing.T) {
	t.Helper()
	ov := c.f.overlay
	if _, err := os.Stat(stageDir(ov)); err == nil && sameContent(snap(t, stageDir(ov)), c.backup) {
		t.Errorf("the staging directory %s holds the old overlay", stageDir(ov))
	}
	if _, err := Sync(context.Background(), withCommit(c.f.forkOpts, c.c1)); err != nil {
		t.Fatalf("the sync after the interruption: %v", err)
	}
	sameSnap(t, snap(t, ov), c.want)
	for _, d := range []string{stageDir(ov), oldDir(ov), swapDir(ov)} {
		if _, err := os.Stat(d); err == nil {
			t.Errorf("%s is left over after the next sync", d)
		}
	}
	if res, err := Sync(context.Background(), withCommit(c.f.forkOpts, c.c1)); err != nil || res.changed() {
		t.Errorf("a third sync changed something: %+v %v", res, err)
	}
}

func sameContent(a, b snapshot) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestInterruptedSwapConverges stops the swap after each of its steps, on
// the one-step exchange and on the two-rename fallback.
func TestInterruptedSwapConverges(t *testing.T) {
	for _, tc := range []struct {
		step       string
		noExchange bool
	}{
		{"staged-moved", false}, {"exchanged", false},
		{"staged-moved", true}, {"moved-aside", true}, {"moved-in", true},
	} {
		name := tc.step
		if tc.noExchange {
			name = "two-renames/" + name
		}
		t.Run(name, func(t *testing.T) {
			c := newSwapCase(t)
			if tc.noExchange {
				exchangeDirs = func(a, b string) error { return errNoExchange }
			}
			swapStep = func(step string) error {
				if step == tc.step {
					return errStopped
				}
				return nil
			}
			_, err := Sync(context.Background(), withCommit(c.f.forkOpts, c.c1))
			exchangeDirs, swapStep = exchange, func(string) error { return nil }
			if !errors.Is(err, errStopped) {
				t.Fatalf("the sync did not stop at %s: %v", tc.step, err)
			}
			c.check(t)
		})
	}
}

// TestKilledSwapConverges: a real kill -9 of a syncing process between the
// steps of its swap, then a sync that must converge.
func TestKilledSwapConverges(t *testing.T) {
	for _, tc := range []struct {
		step       string
		noExchange bool
	}{{"exchanged", false}, {"moved-aside", true}} {
		t.Run(tc.step, func(t *testing.T) {
			c := newSwapCase(t)
			opts, err := json.Marshal(withCommit(c.f.forkOpts, c.c1))
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), childEnv+"="+string(opts), "CHILD_BLOCK_AT="+tc.step)
			if tc.noExchange {
				cmd.Env = append(cmd.Env, "CHILD_NO_EXCHANGE=1")
			}
			var stderr bytes.Buffer
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			ready := make(chan string, 1)
			go func() {
				buf := make([]byte, 64)
				n, _ := out.Read(buf)
				ready <- string(buf[:n])
			}()
			select {
			case s := <-ready:
				if !strings.Contains(s, "ready") {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("the child said %q: %s", s, stderr.String())
				}
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the child never reached %s: %s", tc.step, stderr.String())
			}
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			if err := cmd.Wait(); err == nil {
				t.Fatal("the child finished before the kill")
			}
			c.check(t)
		})
	}
}
