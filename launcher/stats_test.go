package launcher_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlxbuild/mlxbuild/launcher"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// TestParseStats reads outputs recorded from the installed tools:
// ccache 4.7.5 (a local hit and miss; a remote hit, a miss and a remote
// error after Redis was killed) and sccache 0.4.0-pre.6 (local disk).
func TestParseStats(t *testing.T) {
	cases := []struct {
		file string
		want launcher.Stats
	}{
		{"ccache-4.7.5-local.tsv", launcher.Stats{Hits: 1, Misses: 1}},
		{"ccache-4.7.5-remote.tsv", launcher.Stats{Hits: 1, Misses: 1, RemoteHits: 1, RemoteErrors: 1}},
		{"sccache-0.4.0-pre.6-local.json", launcher.Stats{Hits: 1}},
		{"sccache-redis-synthetic.json", launcher.Stats{Hits: 3, Misses: 1, RemoteHits: 3, RemoteErrors: 2, Uncacheable: 1}},
	}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		var got launcher.Stats
		if filepath.Ext(c.file) == ".json" {
			got, err = launcher.ParseSccacheStats(data)
		} else {
			got, err = launcher.ParseCcacheStats(data)
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %+v, %v; want %+v", c.file, got, err, c.want)
		}
	}
}

func TestParseStatsRejectsOtherOutput(t *testing.T) {
	// ccache 3's -s output has no tab-separated counters.
	if _, err := launcher.ParseCcacheStats([]byte("cache hit (direct)   1\ncache miss  2\n")); err == nil {
		t.Error("ccache 3 output parsed")
	}
	if _, err := launcher.ParseSccacheStats([]byte("Compile requests 2\n")); err == nil {
		t.Error("sccache text output parsed as JSON")
	}
}

func TestStatsRate(t *testing.T) {
	s := launcher.Stats{Hits: 9, Misses: 1, RemoteHits: 9}
	if s.Compiles() != 10 || s.RemoteRate() != 0.9 {
		t.Errorf("%+v: %d compiles, rate %v", s, s.Compiles(), s.RemoteRate())
	}
	if (launcher.Stats{}).RemoteRate() != 0 {
		t.Error("rate of nothing")
	}
}
