package safepath

import (
	"errors"
	"testing"
)

func TestCheckEntries(t *testing.T) {
	ok := []Entry{
		{Path: "top/"}, {Path: "top/a.h"}, {Path: "top/lib/x.so.1"},
		{Path: "top/lib/x.so", Symlink: true, Link: "x.so.1"},
		{Path: "top/include/a.h", Symlink: true, Link: "../a.h"},
		{Path: "top/b.h", Hardlink: true, Link: "top/a.h"},
	}
	if err := CheckEntries(ok); err != nil {
		t.Fatalf("a plain listing: %v", err)
	}
	for name, c := range map[string]struct {
		entries []Entry
		entry   string
		why     string
	}{
		"dotdot":           {[]Entry{{Path: "top/ok"}, {Path: "../dotdot.txt"}}, "../dotdot.txt", "it has a .. component"},
		"absolute":         {[]Entry{{Path: "/tmp/abs.txt"}}, "/tmp/abs.txt", "it is absolute"},
		"link outside":     {[]Entry{{Path: "top/link", Symlink: true, Link: "/tmp/x"}}, "top/link", `it is a symbolic link to the absolute path "/tmp/x"`},
		"link climbs":      {[]Entry{{Path: "top/link", Symlink: true, Link: "../../x"}}, "top/link", `it is a symbolic link to "../../x", which leaves the archive's root`},
		"through link":     {[]Entry{{Path: "top/link", Symlink: true, Link: "sub"}, {Path: "top/link/f"}}, "top/link/f", "it lies below top/link, a symbolic link of the same archive"},
		"file before link": {[]Entry{{Path: "top/link/f"}, {Path: "top/link", Symlink: true, Link: "."}}, "top/link/f", "it lies below top/link"},
		"link chain":       {[]Entry{{Path: "top/a", Symlink: true, Link: ".."}, {Path: "top/b", Symlink: true, Link: "a/../.."}}, "top/b", `it is a symbolic link to "a/../..", through top/a, another link of the same archive`},
		"hard link out":    {[]Entry{{Path: "top/h", Hardlink: true, Link: "../../etc/passwd"}}, "top/h", `it is a hard link to "../../etc/passwd", outside the archive's root`},
		"hard via link":    {[]Entry{{Path: "top/l", Symlink: true, Link: "d"}, {Path: "top/h", Hardlink: true, Link: "top/l/x"}}, "top/h", "it is a hard link through top/l"},
		"nul":              {[]Entry{{Path: "top/a\x00b"}}, "top/a\x00b", "it holds a NUL byte at byte 5"},
	} {
		err := CheckEntries(c.entries)
		var ue *UnsafeError
		if !errors.As(err, &ue) || ue.Entry != c.entry || len(ue.Why) < len(c.why) || ue.Why[:len(c.why)] != c.why {
			t.Errorf("%s: %v, want %q refused with %q", name, err, c.entry, c.why)
		}
	}
}

// EntryProblems names every bad entry of a listing, in its order, with the
// listing's word for its root; CheckEntries is its first.
func TestEntryProblemsNamesEveryBadEntry(t *testing.T) {
	entries := []Entry{
		{Path: "mlx/ok.h"},
		{Path: "mlx/host.h", Symlink: true, Link: "/etc/hostname"},
		{Path: "mlx/a\ncargo:x"},
		{Path: "mlx/up", Symlink: true, Link: "../../.."},
		{Path: "mlx/alias.h", Symlink: true, Link: "ok.h"},
	}
	bad := EntryProblems(entries, "source")
	want := []string{
		`refusing unsafe path "mlx/a\ncargo:x": it holds a newline at byte 5`,
		`refusing unsafe path "mlx/host.h": it is a symbolic link to the absolute path "/etc/hostname"`,
		`refusing unsafe path "mlx/up": it is a symbolic link to "../../..", which leaves the source's root`,
	}
	if len(bad) != len(want) {
		t.Fatalf("got %d problems, want %d: %v", len(bad), len(want), bad)
	}
	for i, w := range want {
		if bad[i].Error() != w {
			t.Errorf("problem %d: %q, want %q", i, bad[i], w)
		}
	}
	if err := CheckEntries(entries); err == nil || err.Error() != bad[0].Error() {
		t.Errorf("CheckEntries: %v, want the first problem", err)
	}
}
