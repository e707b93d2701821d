package overlays

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestV5ManifestIsRead: a manifest of the form that kept each directory's
// listing after the entries keeps its entries, the listings ignored (an
// upgrade re-hashes nothing: a touched source is passed on as a touch,
// which needs the old entry), and the next run that changes anything
// rewrites it in the current form. The listings are those of a manifest
// Materialize wrote with them (the fuzz seed kept-listings-v5).
func TestV5ManifestIsRead(t *testing.T) {
	seed := fuzzSeed(t, "testdata/fuzz/FuzzReadManifest/kept-listings-v5")
	seedPath := filepath.Join(t.TempDir(), "seed.manifest")
	if err := os.WriteFile(seedPath, seed, 0o644); err != nil {
		t.Fatal(err)
	}
	old := readManifest(seedPath)
	if want := binary.LittleEndian.Uint64(seed[len(manifestHeaderV5):]); len(old.entries) == 0 || uint64(len(old.entries)) != want {
		t.Fatalf("the v5 seed read as %d entries, its header says %d", len(old.entries), want)
	}
	var buf bytes.Buffer
	if err := old.encode(&buf); err != nil {
		t.Fatal(err)
	}
	listings := seed[len(manifestHeaderV5)+buf.Len()-len(manifestHeader):]
	if binary.LittleEndian.Uint64(listings) == 0 {
		t.Fatal("the seed keeps no listing")
	}

	f := settled(t)
	m := readManifest(f.manifest)
	buf.Reset()
	if err := m.encode(&buf); err != nil {
		t.Fatal(err)
	}
	v5 := append([]byte(manifestHeaderV5), buf.Bytes()[len(manifestHeader):]...)
	if err := os.WriteFile(f.manifest, append(v5, listings...), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := readManifest(f.manifest); !reflect.DeepEqual(got.entries, m.entries) {
		t.Fatalf("v5 manifest read as %d entries, want %d", len(got.entries), len(m.entries))
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(filepath.Join(f.pristine, "mlx/array.cpp"), later, later); err != nil {
		t.Fatal(err)
	}
	if st := f.runHeld(t); st.Touched != 1 || st.Written != 0 {
		t.Fatalf("%+v, want the touch passed on and nothing written", st)
	}
	if head, _ := os.ReadFile(f.manifest); !bytes.HasPrefix(head, []byte(manifestHeader)) {
		t.Fatal("the manifest was not rewritten in the current form")
	}
}

// fuzzSeed is the []byte value of a one-value seed file of a fuzz corpus.
func fuzzSeed(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	_, value, _ := strings.Cut(strings.TrimSpace(string(b)), "\n")
	s, err := strconv.Unquote(strings.TrimSuffix(strings.TrimPrefix(value, "[]byte("), ")"))
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return []byte(s)
}
