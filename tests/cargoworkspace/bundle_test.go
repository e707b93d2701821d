package cargoworkspace

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// bundleRuns bundles a Cargo workspace binary as a release script would
// (`mage bundle:rocm target/debug/cli -out=...`, the same path as any
// program), copies the bundle elsewhere, removes the ROCm root and
// mlxbuild's cache, and starts the copy with LD_LIBRARY_PATH unset: the
// stand-in HIP runtime (libamdhip64.so.6, in no system folder) is loaded
// from the bundle's lib/, and no run path names a build-machine folder.
// It removes the ROCm root: the last step of a test.
func (w *workspace) bundleRuns(t *testing.T, cli string) {
	t.Helper()
	tmp := t.TempDir()
	dist := filepath.Join(tmp, "dist")
	testutil.RunOK(t, w.env, w.repo, "go", "run", "mage.go", "bundle:rocm", cli, "-out="+dist)
	shipped := filepath.Join(tmp, "shipped")
	testutil.RunOK(t, nil, "", "cp", "-a", dist, shipped)
	root := filepath.Dir(filepath.Dir(w.libDir))
	cacheDir := filepath.Join(filepath.Dir(root), "cache")
	for _, d := range []string{root, cacheDir, dist} {
		if err := os.RemoveAll(d); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"bin/cli", "lib/" + standInSoname} {
		elf := testutil.RunOK(t, nil, "", "readelf", "-d", filepath.Join(shipped, f))
		rp := testutil.Field(elf, "Library runpath: [")
		if !strings.HasPrefix(rp, "$ORIGIN") || strings.Contains(rp, "/"+filepath.Base(tmp)) {
			t.Errorf("%s's run path %q is not $ORIGIN-relative\n%s", f, rp, elf)
		}
	}
	out := testutil.RunOK(t, append(testutil.EnvWithout("LD_LIBRARY_PATH"), "LD_DEBUG=libs"), "", filepath.Join(shipped, "bin", "cli"))
	// The loader names the file by the run path it came through, unclean.
	if !strings.Contains(out, "calling init: "+filepath.Join(shipped, "bin")+"/../lib/"+standInSoname) {
		t.Errorf("the stand-in HIP runtime was not loaded from the bundle's lib/:\n%s", out)
	}
	if m := cliLine.FindStringSubmatch(out); m == nil || m[2] != "rocm" {
		t.Errorf("the bundled cli did not print its ROCm line:\n%s", out)
	}
}
