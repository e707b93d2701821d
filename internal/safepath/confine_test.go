package safepath

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

func TestCheckRelRefusesWhatLeavesTheRoot(t *testing.T) {
	for _, ok := range []string{"a", "mlx/backend/rocm/a.hip", "a//b", "./a", "a/.", "..a/b..", "mlx/tab\there.h", "café/ü"} {
		if err := CheckRel(ok); err != nil {
			t.Errorf("CheckRel(%q) = %v, want nil", ok, err)
		}
	}
	for rel, why := range map[string]string{
		"":                                  "it is empty",
		"..":                                "it has a .. component",
		"../x":                              "it has a .. component",
		"mlx/backend/rocm/../../../escaped": "it has a .. component",
		"a/..":                              "it has a .. component",
		"/etc/passwd":                       "it is absolute",
		"a\x00b":                            "it holds a NUL byte at byte 1",
		"a\nb":                              "it holds a newline at byte 1",
	} {
		err := CheckRel(rel)
		var ue *UnsafeError
		if !errors.As(err, &ue) || ue.Why != why || ue.Entry != rel {
			t.Errorf("CheckRel(%q) = %v, want %q", rel, err, why)
			continue
		}
		if want := "refusing unsafe path " + `"` + strings.NewReplacer("\x00", `\x00`, "\n", `\n`).Replace(rel) + `": ` + why; err.Error() != want {
			t.Errorf("message %q, want %q", err.Error(), want)
		}
		if fail.ExitCode(err) != 2 {
			t.Errorf("CheckRel(%q): exit code %d, want 2", rel, fail.ExitCode(err))
		}
	}
}

func TestJoinRefusesAPathThroughALink(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, "a", "b"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "a", "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "a", "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := Join(root, "a/b/new/deeper/x"); err != nil || got != filepath.Join(root, "a", "b", "new", "deeper", "x") {
		t.Errorf("Join below a real directory = %q, %v", got, err)
	}
	for rel, why := range map[string]string{
		"a/out/x":        "a/out is a symbolic link",
		"a/out/deeper/x": "a/out is a symbolic link",
		"a/file/x":       "a/file is not a directory",
		"a/../x":         "it has a .. component",
	} {
		_, err := Join(root, rel)
		var ue *UnsafeError
		if !errors.As(err, &ue) || ue.Why != why {
			t.Errorf("Join(%q) = %v, want %q", rel, err, why)
		}
	}
	// The last component is the writer's to replace: Join does not refuse it.
	if _, err := Join(root, "a/out"); err != nil {
		t.Errorf("Join(a/out) = %v", err)
	}
	if err := CheckAll([]string{"ok", "also/ok", "../no", "/abs"}); err == nil || !strings.Contains(err.Error(), `"../no"`) {
		t.Errorf("CheckAll: %v, want the first refusal (../no)", err)
	}
}

// FuzzCheckRel: whatever CheckRel accepts stays below its root when joined,
// lexically, and carries no byte a line-based record cannot hold.
func FuzzCheckRel(f *testing.F) {
	for _, s := range []string{"a/b", "../x", "a/../../b", "/abs", "a\x00", "a\nb", "..", ".", "a//b", "./..", "...", `..\x`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, rel string) {
		err := CheckRel(rel)
		if err != nil {
			var ue *UnsafeError
			if !errors.As(err, &ue) || fail.ExitCode(err) != 2 {
				t.Fatalf("CheckRel(%q) = %v: not an UnsafeError of exit 2", rel, err)
			}
			return
		}
		root := "/r/o/o/t"
		j := filepath.Join(root, filepath.FromSlash(rel))
		if j != root && !strings.HasPrefix(j, root+"/") {
			t.Fatalf("CheckRel accepted %q, which joins to %q, outside %s", rel, j, root)
		}
		if strings.ContainsAny(rel, "\x00\n\r") {
			t.Fatalf("CheckRel accepted %q with a NUL or line break", rel)
		}
	})
}

func TestCheckRelAllocatesNothing(t *testing.T) {
	if n := testing.AllocsPerRun(100, func() { _ = CheckRel("mlx/backend/rocm/kernels/a.hip") }); n != 0 {
		t.Errorf("CheckRel of a good path allocates %v times", n)
	}
}
