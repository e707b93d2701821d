package forksync

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

func TestSetUpstreamKeepsEveryOtherByte(t *testing.T) {
	in := "# comment\r\nsource: x\r\ncommit:   old\r\n  fork_upstream_merge_base: b\r\nlicense: MIT"
	got := string(setUpstream([]byte(in), [][2]string{{"commit", "new"}, {"fork_upstream_merge_base", "c"}, {"retargeted_to_mlx_pin", "p"}}))
	want := "# comment\r\nsource: x\r\ncommit: new\r\n  fork_upstream_merge_base: c\r\nlicense: MIT\nretargeted_to_mlx_pin: p\n"
	if got != want {
		t.Errorf("setUpstream:\n%q\nwant\n%q", got, want)
	}
}

func TestHunkContainment(t *testing.T) {
	h := hunk{lines: []string{" a", "-old", "+new", " b", " c", "+added", " d", " e", "-gone", " f"}}
	cases := []struct {
		overlay string
		want    bool
	}{
		{"a\nnew\nb\nc\nadded\nd\ne\nf\n", true},          // all three changes in place
		{"a\nold\nb\nc\nadded\nd\ne\nf\n", false},         // the replacement is missing
		{"a\nnew\nb\nc\nd\ne\nf\n", false},                // the addition is missing
		{"a\nnew\nb\nc\nadded\nd\ne\ngone\nf\n", false},   // the removal is missing
		{"x\nnew\ny\nc\nadded\nd\ne\nf\n", true},          // new lines present, old ones gone, context changed locally
		{"a  \r\nnew\t\nb\nc\nadded\nd\ne\nf\n", true},    // trailing white space does not count
		{"a\nnew\nb\nc\nadded\nd\ne\nx\ngone\nf\n", true}, // "gone" elsewhere is not the removed line in place
	}
	for i, c := range cases {
		if got := hunkContained(h, splitText([]byte(c.overlay))); got != c.want {
			t.Errorf("case %d: contained = %v, want %v", i, got, c.want)
		}
	}
}

func TestParseDiff(t *testing.T) {
	out := "diff --git a/x.cpp b/x.cpp\nindex 1..2 100644\n--- a/x.cpp\n+++ b/x.cpp\n@@ -1,2 +1,3 @@\n a\n+b\n c\n\\ No newline at end of file\n" +
		"diff --git a/gone.h b/gone.h\ndeleted file mode 100644\n--- a/gone.h\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n" +
		"diff --git a/img.png b/img.png\nBinary files a/img.png and b/img.png differ\n"
	fs, err := parseDiff(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(fs) != 3 || fs[0].path != "x.cpp" || len(fs[0].hunks) != 1 || fs[0].hunks[0].newLines != 3 ||
		strings.Join(fs[0].hunks[0].lines, "|") != " a|+b| c" {
		t.Errorf("x.cpp: %+v", fs)
	}
	if !fs[1].deleted || fs[1].path != "gone.h" || fs[1].hunks[0].oldLines != 1 || fs[1].hunks[0].newLines != 0 {
		t.Errorf("gone.h: %+v", fs[1])
	}
	if !fs[2].binary || fs[2].path != "img.png" {
		t.Errorf("img.png: %+v", fs[2])
	}
}

// A crash between the two renames of the fallback swap leaves no overlay
// and the old copy beside it: the next sync puts the old copy back.
func TestRecoverSwapRestoresTheOverlay(t *testing.T) {
	root := t.TempDir()
	ov := filepath.Join(root, "patches")
	testutil.WriteFile(t, filepath.Join(oldDir(ov), "UPSTREAM"), "commit: x\n")
	if err := recoverSwap(ov); err != nil {
		t.Fatal(err)
	}
	if readFile(t, filepath.Join(ov, "UPSTREAM")) != "commit: x\n" {
		t.Error("the overlay was not restored")
	}
	// A leftover old copy next to a live overlay is removed.
	testutil.WriteFile(t, filepath.Join(oldDir(ov), "UPSTREAM"), "commit: old\n")
	if err := recoverSwap(ov); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(oldDir(ov)); err == nil {
		t.Error("the leftover old copy is still there")
	}
	if readFile(t, filepath.Join(ov, "UPSTREAM")) != "commit: x\n" {
		t.Error("the live overlay changed")
	}
}

func TestMergeBinaryAndIdentical(t *testing.T) {
	needGit(t)
	m := &merger{dir: t.TempDir()}
	l := labels{"o", "b", "t"}
	ctx := context.Background()
	bin := func(s string) []byte { return []byte("\x00" + s) }
	if out, c, err := m.merge3(ctx, bin("o"), bin("b"), bin("t"), l); err != nil || !c || string(out) != "\x00o" {
		t.Errorf("binary changed on both sides: %q %v %v", out, c, err)
	}
	if out, c, err := m.merge3(ctx, bin("b"), bin("b"), bin("t"), l); err != nil || c || string(out) != "\x00t" {
		t.Errorf("binary changed by theirs only: %q %v %v", out, c, err)
	}
	base := []byte("1\n2\n3\n4\n5\n6\n7\n8\n")
	same := []byte("1\n2\nX\n4\n5\n6\n7\n8\n")
	theirs := []byte("1\n2\nX\n4\n5\n6\n7\nY\n")
	if out, c, err := m.merge3(ctx, same, base, theirs, l); err != nil || c || string(out) != string(theirs) {
		t.Errorf("the same change on both sides plus one more: %q %v %v", out, c, err)
	}
}

// TestMergeIgnoresABrokenRepositoryAround: a project that is a git
// worktree whose .git names a folder this root cannot see (a chroot) made
// every merge fail with "not a git repository"; merge-file needs none.
func TestMergeIgnoresABrokenRepositoryAround(t *testing.T) {
	project := t.TempDir()
	if err := os.WriteFile(filepath.Join(project, ".git"), []byte("gitdir: /nonexistent/.git/worktrees/x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(project)
	m := &merger{dir: t.TempDir()}
	got, conflict, err := m.merge3(context.Background(), []byte("A\nb\nc\nd\ne\n"), []byte("a\nb\nc\nd\ne\n"), []byte("a\nb\nc\nd\nE\n"), labels{"overlay", "old", "new"})
	if err != nil || conflict {
		t.Fatalf("merge in a folder with a broken .git: %v (conflict %v)", err, conflict)
	}
	if string(got) != "A\nb\nc\nd\nE\n" {
		t.Errorf("merged %q", got)
	}
}
