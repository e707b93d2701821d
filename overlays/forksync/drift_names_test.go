package forksync

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestDriftSeesFilesWhoseNamesGitQuotes: core files with a space, non-ASCII
// letters, a quote, a backslash or a tab in their names (git quotes all but
// the space in its listings, and puts a tab after a spaced name in diff
// headers) that upstream changed are reported as moved, with their hunks,
// not as "unchanged upstream".
func TestDriftSeesFilesWhoseNamesGitQuotes(t *testing.T) {
	f := newSyncFixture(t)
	names := []string{"mlx/with space.cpp", "mlx/café ü.h", `mlx/q"uote.h`, `mlx/back\slash.h`, "mlx/tab\there.h", "mlx/:colon.h"}
	before, after := map[string]string{}, map[string]string{}
	for _, n := range names {
		before[n] = lines("n", 10, nil)
		after[n] = lines("n", 10, map[int]string{5: "upstream moved " + n})
	}
	pin := f.mlx.commit("names git quotes", before)
	f.mlx.commit("upstream changes them", after)
	for _, n := range names {
		testutil.WriteFile(t, filepath.Join(f.overlay, filepath.FromSlash(n)), before[n])
	}
	f.setUpstreamLine(t, "retargeted_to_mlx_pin", pin)
	cfg, err := configs.LoadConfig(filepath.Dir(f.project), func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	o, _, err := DriftOptionsFor(cfg, "rocm", "main")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Drift(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]fileDrift{}
	for _, fd := range rep.files {
		got[fd.path] = fd
	}
	for _, n := range names {
		fd, ok := got[n]
		switch {
		case !ok:
			t.Errorf("%q is not among the core files: %q", n, rep.moved())
		case !fd.moved || len(fd.missing) != 1:
			t.Errorf("%q: moved %v, %d missing hunk(s); want moved with 1 missing hunk", n, fd.moved, len(fd.missing))
		case !strings.Contains(strings.Join(fd.missing[0].lines, "\n"), "+upstream moved "+n):
			t.Errorf("%q: the missing hunk is not upstream's change: %q", n, fd.missing[0].lines)
		}
	}
}
