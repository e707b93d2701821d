package records

import (
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// TestResidualCheckPathsRefusesPathsOutsideTheOverlay: a patch header, a
// hash line or a note that names a path with "..", an absolute path or a
// NUL is refused with exit 2 at its line; a residual of plain overlay
// paths passes.
func TestResidualCheckPathsRefusesPathsOutsideTheOverlay(t *testing.T) {
	ok := "# overlay-sha256: " + hexA + " mlx/y.cpp\n# note mlx/y.cpp: item 1\n--- a/mlx/y.cpp\n+++ b/mlx/y.cpp\n@@ -1 +1 @@\n-a\n+b\n"
	r, _ := ParseResidual([]byte(ok))
	if err := r.CheckPaths("CORE_RESIDUAL.diff"); err != nil {
		t.Fatalf("a plain residual: %v", err)
	}
	for doc, want := range map[string]string{
		"# pin: x\n--- a/../../etc/x\n+++ b/../../etc/x\n@@ -1 +1 @@\n-a\n+b\n":        `CORE_RESIDUAL.diff:2: refusing unsafe path "../../etc/x": it has a .. component`,
		"# overlay-sha256: " + hexA + " /etc/passwd\n":                                 `CORE_RESIDUAL.diff:1: refusing unsafe path "/etc/passwd": it is absolute`,
		"# pin: x\n\n# note mlx/../../up.cpp: item 1\n":                                `CORE_RESIDUAL.diff:3: refusing unsafe path "mlx/../../up.cpp"`,
		"--- a/mlx/y.cpp\n+++ b/mlx/y.cpp\n--- a/mlx/z\x00.cpp\n+++ b/mlx/z\x00.cpp\n": `CORE_RESIDUAL.diff:3: refusing unsafe path "mlx/z\x00.cpp": it holds a NUL byte`,
	} {
		r, _ := ParseResidual([]byte(doc))
		err := r.CheckPaths("CORE_RESIDUAL.diff")
		if err == nil || !strings.Contains(err.Error(), want) || fail.ExitCode(err) != 2 {
			t.Errorf("CheckPaths of %q = %v (exit %d), want exit 2 with %q", doc, err, fail.ExitCode(err), want)
		}
	}
}
