package deps

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestUnpackRefusesArchiveMembersOutsideItsDirectory: archives made by GNU
// tar with a "../" member, an absolute member, and a symbolic link to a
// directory outside followed by a file through it are each refused with
// exit 2 naming the member; nothing is unpacked, inside the store or
// outside it (cmake -E tar alone writes all three where they point).
func TestUnpackRefusesArchiveMembersOutsideItsDirectory(t *testing.T) {
	testutil.NeedTools(t, "tar", "cmake")
	root := t.TempDir()
	mk := filepath.Join(root, "mk")
	work := filepath.Join(mk, "w1", "w2", "w3", "w4")
	testutil.WriteFile(t, filepath.Join(work, "top", "ok.txt"), "ok\n")
	testutil.WriteFile(t, filepath.Join(mk, "escaped.txt"), "escaped\n")
	abs := filepath.Join(root, "abs-target", "abs.txt")
	testutil.WriteFile(t, abs, "absolute\n")
	outside := filepath.Join(root, "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	linkDir, throughDir := filepath.Join(mk, "link"), filepath.Join(mk, "through")
	testutil.WriteFile(t, filepath.Join(linkDir, "top", "ok.txt"), "ok\n")
	if err := os.Symlink(outside, filepath.Join(linkDir, "top", "link")); err != nil {
		t.Fatal(err)
	}
	testutil.WriteFile(t, filepath.Join(throughDir, "top", "link", "through.txt"), "through\n")

	archives := filepath.Join(mk, "archives")
	if err := os.MkdirAll(archives, 0o755); err != nil {
		t.Fatal(err)
	}
	dotdot, absolute, link := filepath.Join(archives, "dotdot.tar"), filepath.Join(archives, "abs.tar"), filepath.Join(archives, "link.tar")
	// -P keeps "../" and a leading "/" in member names, as a hostile
	// archive has them.
	testutil.RunOK(t, nil, work, "tar", "-cPf", dotdot, "top/ok.txt", "../../../../escaped.txt")
	testutil.RunOK(t, nil, work, "tar", "-cPf", absolute, "top/ok.txt", abs)
	testutil.RunOK(t, nil, linkDir, "tar", "-cf", link, "top")
	testutil.RunOK(t, nil, throughDir, "tar", "-rf", link, "top/link/through.txt")
	if err := os.RemoveAll(filepath.Dir(abs)); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		archive, entry, why string
		lands               string // where cmake -E tar would write it
	}{
		{dotdot, "../../../../escaped.txt", "it has a .. component", filepath.Join(root, "escaped.txt")},
		{absolute, abs, "it is absolute", abs},
		// The link is refused first: the file through it is never reached.
		{link, "top/link", `it is a symbolic link to the absolute path "` + outside + `"`, filepath.Join(outside, "through.txt")},
	} {
		t.Run(filepath.Base(c.archive), func(t *testing.T) {
			data, err := os.ReadFile(c.archive)
			if err != nil {
				t.Fatal(err)
			}
			store := StoreAt(filepath.Join(root, "cache"))
			d := configs.Dependency{Name: "hostile", URL: "https://example.com/hostile.tar", SHA256: sha(data), Providers: []string{"cache"}}
			testutil.WriteFile(t, store.Archive(d), string(data))
			_, err = store.Unpack(context.Background(), d, "")
			if err == nil {
				t.Fatal("the archive was unpacked")
			}
			if code := fail.ExitCode(err); code != 2 {
				t.Errorf("exit code %d, want 2: %v", code, err)
			}
			if want := `refusing unsafe path "` + c.entry + `": ` + c.why; !strings.Contains(err.Error(), want) {
				t.Errorf("the error does not say %q:\n%v", want, err)
			}
			if _, err := os.Lstat(c.lands); err == nil {
				t.Errorf("%s was written", c.lands)
			}
			if es, _ := os.ReadDir(filepath.Join(store.Dir, "src")); len(es) != 0 {
				t.Errorf("the store's src holds %v", es)
			}
			if es, _ := os.ReadDir(outside); len(es) != 0 {
				t.Errorf("%s holds %v", outside, es)
			}
		})
	}
}

// TestUnpackRefusesAZipWithAClimbingLink: a zip made by Info-ZIP with a
// symbolic link member (-y stores the link itself) that climbs out of the
// archive is refused like a tar's.
func TestUnpackRefusesAZipWithAClimbingLink(t *testing.T) {
	testutil.NeedTools(t, "zip", "cmake")
	root := t.TempDir()
	work := filepath.Join(root, "w")
	testutil.WriteFile(t, filepath.Join(work, "top", "ok.txt"), "ok\n")
	if err := os.Symlink("../../../../../outside", filepath.Join(work, "top", "up")); err != nil {
		t.Fatal(err)
	}
	zipFile := filepath.Join(root, "hostile.zip")
	testutil.RunOK(t, nil, work, "zip", "-q", "-r", "-y", zipFile, "top")
	data, err := os.ReadFile(zipFile)
	if err != nil {
		t.Fatal(err)
	}
	store := StoreAt(filepath.Join(root, "cache"))
	d := configs.Dependency{Name: "hostile", URL: "https://example.com/hostile.zip", SHA256: sha(data), Providers: []string{"cache"}}
	testutil.WriteFile(t, store.Archive(d), string(data))
	_, err = store.Unpack(context.Background(), d, "")
	if want := `refusing unsafe path "top/up": it is a symbolic link to "../../../../../outside", which leaves the archive's root`; err == nil || !strings.Contains(err.Error(), want) || fail.ExitCode(err) != 2 {
		t.Fatalf("Unpack = %v, want exit 2 with %q", err, want)
	}
	if es, _ := os.ReadDir(filepath.Join(store.Dir, "src")); len(es) != 0 {
		t.Errorf("the store's src holds %v", es)
	}
}
