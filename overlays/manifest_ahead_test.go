package overlays

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/fileid"
)

// TestManifestAheadKeepsOnlyAnUnchangedFile: a manifest read ahead is used
// while its file is unchanged, and read again once another run replaced it,
// once it appeared where none was, and for another path; MaterializeHeld
// with a stale read decides what Materialize decides.
func TestManifestAheadKeepsOnlyAnUnchangedFile(t *testing.T) {
	d := fastTempDir(t)
	pristine, tree, man := filepath.Join(d, "p"), filepath.Join(d, "t"), filepath.Join(d, "t.manifest")
	writeFiles(t, pristine, files{"a.h": "a", "sub/b.cc": "b"})

	// No manifest yet: read ahead as empty, then written by a run.
	none := ReadManifestAhead(man)
	if _, _, err := Materialize(pristine, "", tree, man, nil); err != nil {
		t.Fatal(err)
	}
	if got := none.manifest(man); len(got.entries) != 2 {
		t.Fatalf("ahead of a manifest that appeared since: %d entries, want the 2 written", len(got.entries))
	}

	time.Sleep(20 * time.Millisecond) // past the clock tick of the writes (see racy)
	same := ReadManifestAhead(man)
	<-same.done
	if got := same.manifest(man); got != same.m {
		t.Error("an unchanged manifest was read again")
	}
	if got := same.manifest(filepath.Join(d, "other")); got == same.m || len(got.entries) != 0 {
		t.Errorf("another path gave the read-ahead manifest (%d entries)", len(got.entries))
	}

	// Another run replaces the manifest after the read ahead: a third file.
	stale := ReadManifestAhead(man)
	<-stale.done
	writeFiles(t, pristine, files{"c.h": "c"})
	if _, _, err := Materialize(pristine, "", tree, man, nil); err != nil {
		t.Fatal(err)
	}
	if got := stale.manifest(man); got == stale.m || len(got.entries) != 3 {
		t.Fatalf("a replaced manifest: %d entries, want the 3 of the new file", len(got.entries))
	}

	// MaterializeHeld with a stale read decides from the current file: a
	// no-op that keeps it. (With the stale one, b.cc's tree copy, rewritten
	// since, would not match and the manifest would be rewritten.)
	time.Sleep(20 * time.Millisecond)
	stale = ReadManifestAhead(man)
	<-stale.done
	writeFiles(t, pristine, files{"sub/b.cc": "b2"})
	for range 2 { // the second run verifies the entries the first wrote too recently to trust
		if _, _, err := Materialize(pristine, "", tree, man, nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	before, err := os.Stat(man)
	if err != nil {
		t.Fatal(err)
	}
	st, _, err := MaterializeHeld(pristine, "", tree, man, nil, Held{Ahead: stale})
	if err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(man)
	if err != nil {
		t.Fatal(err)
	}
	if st.Unchanged != 3 || st.Written+st.Restored+st.Removed+st.Touched != 0 || !os.SameFile(before, after) {
		t.Errorf("MaterializeHeld with a stale read: %+v, manifest rewritten: %v; want a no-op that keeps it", st, !os.SameFile(before, after))
	}
	// The stale manifest used as if current rewrites the manifest: what the
	// check above looks at does tell the two apart.
	done := make(chan struct{})
	close(done)
	forced := &ManifestAhead{path: man, done: done, m: stale.m, id: fileid.Of(man)}
	if _, _, err := MaterializeHeld(pristine, "", tree, man, nil, Held{Ahead: forced}); err != nil {
		t.Fatal(err)
	}
	if again, err := os.Stat(man); err != nil || os.SameFile(after, again) {
		t.Errorf("the stale manifest used as current left the manifest as it was (%v): the test proves nothing", err)
	}
}
