package overlays

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/cache"
)

// childEnv makes the test binary act as a child process (see runChild):
// the kill -9 and concurrency tests need whole processes to kill and race.
const childEnv = "MLXBUILD_OVERLAYS_TEST_CHILD"

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

// runChild materializes CHILD_PRISTINE + CHILD_OVERLAY into CHILD_TREE, under
// the lock CHILD_LOCK when it is set, like `overlay:apply` does.
func runChild(mode string) int {
	if mode != "materialize" {
		fmt.Fprintln(os.Stderr, "unknown child mode", mode)
		return 3
	}
	if l := os.Getenv("CHILD_LOCK"); l != "" {
		unlock, err := cache.Lock(context.Background(), l, func(pid int) {
			fmt.Fprintf(os.Stderr, "waiting for the lock held by pid %d\n", pid)
		})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		defer unlock()
	}
	if os.Getenv("CHILD_READY") != "" {
		fmt.Println("ready") // the parent starts its random delay from here
	}
	// With the lock's file as the clock, as overlay:apply passes it, so
	// that kept listings are made and used across the kills.
	st, _, err := MaterializeHeld(os.Getenv("CHILD_PRISTINE"), os.Getenv("CHILD_OVERLAY"), os.Getenv("CHILD_TREE"), os.Getenv("CHILD_MANIFEST"), nil, Held{LockFile: os.Getenv("CHILD_LOCK")})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("written %d restored %d removed %d unchanged %d\n", st.Written, st.Restored, st.Removed, st.Unchanged)
	return 0
}

// fastTempDir is a temporary directory on tmpfs (/dev/shm) when there is
// one: on the CI kind of machine the disk's ext4 takes about 0.5 ms to create
// a file (cp -a of 900 small files: 2 s), which would make the reliability
// tests, each writing thousands of files, take minutes. What they check
// (rename atomicity, locks, permissions) is the same on every file system.
func fastTempDir(t testing.TB) string {
	t.Helper()
	if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
		if d, err := os.MkdirTemp("/dev/shm", "mlxbuild-overlays-test-"); err == nil {
			t.Cleanup(func() { os.RemoveAll(d) })
			return d
		}
	}
	return t.TempDir()
}

// files is a tree's content: slash path -> bytes. A path ending in "*" is
// an executable file (the star is not part of the name).
type files map[string]string

func writeFiles(t testing.TB, root string, fs files) {
	t.Helper()
	for p, c := range fs {
		mode := os.FileMode(0o644)
		if strings.HasSuffix(p, "*") {
			p, mode = strings.TrimSuffix(p, "*"), 0o755
		}
		abs := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, []byte(c), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(abs, mode); err != nil {
			t.Fatal(err)
		}
	}
}

// readFiles reads a whole tree the way writeFiles writes one; symlinks
// read as "-> target".
func readFiles(t testing.TB, root string) files {
	t.Helper()
	out := files{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		rel = filepath.ToSlash(rel)
		if d.Type()&fs.ModeSymlink != 0 {
			target, err := os.Readlink(path)
			out[rel] = "-> " + target
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if fi.Mode()&0o111 != 0 {
			rel += "*"
		}
		data, err := os.ReadFile(path)
		out[rel] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameFiles(t testing.TB, got, want files) {
	t.Helper()
	for p, w := range want {
		g, ok := got[p]
		switch {
		case !ok:
			t.Errorf("tree lacks %s", p)
		case g != w:
			t.Errorf("tree %s = %.40q (%d bytes), want %.40q (%d bytes)", p, g, len(g), w, len(w))
		}
	}
	for p := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("tree has %s, which it should not", p)
		}
	}
}

// statID is what must not move for a file that was not rewritten.
type statID struct {
	ino   uint64
	mtime int64
}

func statIDs(t testing.TB, root string) map[string]statID {
	t.Helper()
	out := map[string]statID{}
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := os.Lstat(path)
		if err != nil {
			t.Fatal(err)
		}
		s := statData(fi)
		rel, _ := filepath.Rel(root, path)
		out[filepath.ToSlash(rel)] = statID{s.ino, s.mtime}
		return nil
	})
	return out
}

// shapeFile is one line of a shape list (testdata/shapes, copied from the
// project's shared data): the size and path of a real file.
type shapeFile struct {
	size int
	path string
}

func loadShape(t testing.TB, name string) []shapeFile {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "shapes", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []shapeFile
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		size, path, ok := strings.Cut(sc.Text(), "\t")
		n, err := strconv.Atoi(size)
		if !ok || err != nil {
			t.Fatalf("%s: bad line %q", name, sc.Text())
		}
		out = append(out, shapeFile{n, path})
	}
	return out
}

// content makes size deterministic, incompressible-looking bytes for path;
// each variant differs from the others in every 8-byte word.
func content(path string, size, variant int) []byte {
	h := fnv.New64a()
	h.Write([]byte(path))
	r := rand.New(rand.NewPCG(h.Sum64(), uint64(variant)))
	b := make([]byte, size+8)
	for i := 0; i < size; i += 8 {
		binary.LittleEndian.PutUint64(b[i:], r.Uint64())
	}
	return b[:size]
}

// writeShape writes every file of shape under root with content variant v
// and returns what it wrote.
func writeShape(t testing.TB, root string, shape []shapeFile, v int) files {
	t.Helper()
	out := files{}
	for _, f := range shape {
		c := content(f.path, f.size, v)
		out[f.path] = string(c)
		abs := filepath.Join(root, f.path)
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(abs, c, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// merged is pristine + overlay as the tree must hold it.
func merged(pristine, overlay files) files {
	out := files{}
	for p, c := range pristine {
		out[p] = c
	}
	for p, c := range overlay {
		out[p] = c
	}
	return out
}
