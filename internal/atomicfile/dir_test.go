package atomicfile

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// The child of TestReplaceDirKilledAtEveryStep writes newSet into the
// directory dirChildEnv names and stops at step dirChildStep until killed.
const (
	dirChildEnv  = "ATOMICFILE_TEST_CHILD_DIR"
	dirChildStep = "ATOMICFILE_TEST_CHILD_STEP"
)

var (
	oldSet = map[string][]byte{"cargo.txt": []byte("cargo:old\n"), "ldflags.txt": []byte("-lold\n"), "link.json": []byte(`{"arch":"old"}`)}
	newSet = map[string][]byte{"cargo.txt": []byte("cargo:new\n"), "ldflags.txt": []byte("-lnew\n"), "link.json": []byte(`{"arch":"new"}`)}
)

// readSet reads every name of want from dir; a missing dir gives nil.
func readSet(t *testing.T, dir string, want map[string][]byte) map[string][]byte {
	t.Helper()
	got := map[string][]byte{}
	for name := range want {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			if os.IsNotExist(err) {
				continue
			}
			t.Fatal(err)
		}
		got[name] = b
	}
	return got
}

func equalSets(a, b map[string][]byte) bool {
	return maps.EqualFunc(a, b, func(x, y []byte) bool { return string(x) == string(y) })
}

// TestReplaceDirKilledAtEveryStep SIGKILLs a writer at each step of
// ReplaceDir, over a directory already replaced once (a link) and over a
// plain directory of the older layout: the three files must agree (all old
// or all new) after every kill, except right after the plain directory was
// moved aside, where none exists; and the next write always leaves exactly
// the new set and no leftovers.
func TestReplaceDirKilledAtEveryStep(t *testing.T) {
	for _, plain := range []bool{false, true} {
		steps := []string{"staged", "linked", "swapped"}
		if plain {
			steps = []string{"staged", "linked", "moved aside", "swapped"}
		}
		for _, step := range steps {
			parent := t.TempDir()
			dir := filepath.Join(parent, "out")
			if plain {
				os.Mkdir(dir, 0o755)
				for n, b := range oldSet {
					if err := Write(filepath.Join(dir, n), b, 0o644); err != nil {
						t.Fatal(err)
					}
				}
			} else if _, err := ReplaceDir(dir, oldSet); err != nil {
				t.Fatal(err)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			killCtx, kill := context.WithCancel(ctx)
			res, err := proc.Run(killCtx, proc.Cmd{Path: os.Args[0], Args: []string{"-test.run=^$"},
				Env: append(os.Environ(), dirChildEnv+"="+dir, dirChildStep+"="+step), Stdout: &signalWriter{cancel: kill}})
			if err == nil || ctx.Err() != nil || !strings.Contains(string(res.Stdout), "halfway") {
				t.Fatalf("plain=%v step %s: the child was not killed halfway: %v\n%s%s", plain, step, err, res.Stdout, res.Stderr)
			}
			kill()
			cancel()
			got := readSet(t, dir, oldSet)
			switch {
			case equalSets(got, oldSet), equalSets(got, newSet):
			case plain && step == "moved aside" && len(got) == 0:
			default:
				t.Errorf("plain=%v killed after %s: the files disagree: %q", plain, step, got)
			}
			if changed, err := ReplaceDir(dir, newSet); err != nil || !changed && !equalSets(got, newSet) {
				t.Fatalf("plain=%v step %s: the next write: %v, %v", plain, step, changed, err)
			}
			if got := readSet(t, dir, newSet); !equalSets(got, newSet) {
				t.Errorf("plain=%v step %s: after the next write: %q", plain, step, got)
			}
			entries, _ := os.ReadDir(parent)
			var names []string
			for _, e := range entries {
				names = append(names, e.Name())
			}
			// The killed child's staging is left for the caller's sweep
			// (cache.RemoveStaleTemps); the next write removes only its own
			// previous generation.
			for _, n := range names {
				if n != "out" && !strings.HasPrefix(n, ".out-") {
					t.Errorf("plain=%v step %s: unexpected entry %s", plain, step, n)
				}
			}
		}
	}
}

// TestReplaceDirUnchanged leaves a directory that already holds the set
// alone: same generation, same mtimes.
func TestReplaceDirUnchanged(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if changed, err := ReplaceDir(dir, oldSet); err != nil || !changed {
		t.Fatalf("first write: %v, %v", changed, err)
	}
	target, _ := os.Readlink(dir)
	st, _ := os.Stat(filepath.Join(dir, "cargo.txt"))
	time.Sleep(10 * time.Millisecond)
	if changed, err := ReplaceDir(dir, oldSet); err != nil || changed {
		t.Fatalf("same content again: changed=%v, %v", changed, err)
	}
	target2, _ := os.Readlink(dir)
	st2, _ := os.Stat(filepath.Join(dir, "cargo.txt"))
	if target != target2 || !st.ModTime().Equal(st2.ModTime()) {
		t.Errorf("an unchanged write replaced the generation (%s -> %s) or the mtime", target, target2)
	}
	if changed, err := ReplaceDir(dir, newSet); err != nil || !changed {
		t.Fatalf("new content: %v, %v", changed, err)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), target)); !os.IsNotExist(err) {
		t.Errorf("the previous generation %s was not removed: %v", target, err)
	}
	if _, err := ReplaceDir(dir, map[string][]byte{"../x": nil}); err == nil {
		t.Error("a name with a slash was accepted")
	}
}
