package cmake

import (
	"strings"
	"testing"
)

// configureWarningLog is what CMake 3.25 prints for a fork's
// message(WARNING ...) with a multi-line text, a warning without a place,
// a developer warning, and the same warning twice (a function called twice).
const configureWarningLog = `-- The CXX compiler identification is GNU 12.2.0
CMake Warning at mlx/backend/rocm/CMakeLists.txt:33 (message):
  rocWMMA was not found.  WMMA kernels are disabled; install rocWMMA for
  gfx11 speed.


CMake Warning:
  Manually-specified variables were not used by the project:

    MLX_BUILD_HALF


CMake Warning (dev) at CMakeLists.txt:5 (project):
  Policy CMP0048 is not set.
This warning is for project developers.  Use -Wno-dev to suppress it.

CMake Warning at mlx/backend/rocm/CMakeLists.txt:33 (message):
  rocWMMA was not found.  WMMA kernels are disabled; install rocWMMA for
  gfx11 speed.


-- Configuring done
`

// TestConfigureWarnings: each warning block a CMake file raised becomes
// file:line and its first sentence, once; CMake's own and dev warnings are
// left out.
func TestConfigureWarnings(t *testing.T) {
	got := ConfigureWarnings(configureWarningLog, "/tree")
	var lines []string
	for _, d := range got {
		lines = append(lines, d.located())
	}
	want := []string{
		"/tree/mlx/backend/rocm/CMakeLists.txt:33: rocWMMA was not found.",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("warnings\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if ws := ConfigureWarnings("-- Configuring done\n-- Generating done\n", "/tree"); len(ws) != 0 {
		t.Errorf("a clean configure has warnings: %v", ws)
	}
}

// FuzzConfigureWarnings: any output parses without a panic, and every
// warning is one line with text.
func FuzzConfigureWarnings(f *testing.F) {
	f.Add(configureWarningLog)
	f.Add("CMake Warning at x.txt:1 (message):\n")
	f.Add("CMake Warning at y:2 (message):\n\n\n")
	f.Fuzz(func(t *testing.T, out string) {
		for _, d := range ConfigureWarnings(out, "/s") {
			if d.Message == "" || strings.ContainsAny(d.Message, "\n\r") {
				t.Fatalf("warning %q is not one line with text", d.Message)
			}
		}
	})
}
