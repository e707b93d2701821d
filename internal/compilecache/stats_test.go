package compilecache_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/compilecache"
)

func errorsIs(err, target error) bool { return errors.Is(err, target) }

// TestParseStats reads outputs recorded from the installed tools:
// ccache 4.7.5 (a local hit and miss; a remote hit, a miss and a remote
// error after Redis was killed) and sccache 0.4.0-pre.6 (local disk).
func TestParseStats(t *testing.T) {
	cases := []struct {
		file string
		want compilecache.Stats
	}{
		{"ccache-4.7.5-local.tsv", compilecache.Stats{Hits: 1, Misses: 1}},
		{"ccache-4.7.5-remote.tsv", compilecache.Stats{Hits: 1, Misses: 1, RemoteHits: 1, RemoteErrors: 1}},
		{"sccache-0.4.0-pre.6-local.json", compilecache.Stats{Hits: 1}},
		{"sccache-redis-synthetic.json", compilecache.Stats{Hits: 3, Misses: 1, RemoteHits: 3, RemoteErrors: 2, Uncacheable: 1}},
	}
	for _, c := range cases {
		data, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		var got compilecache.Stats
		if filepath.Ext(c.file) == ".json" {
			got, err = compilecache.ParseSccacheStats(data)
		} else {
			got, err = compilecache.ParseCcacheStats(data)
		}
		if err != nil || got != c.want {
			t.Errorf("%s: got %+v, %v; want %+v", c.file, got, err, c.want)
		}
	}
}

func TestParseStatsRejectsOtherOutput(t *testing.T) {
	// ccache 3's -s output has no tab-separated counters.
	if _, err := compilecache.ParseCcacheStats([]byte("cache hit (direct)   1\ncache miss  2\n")); err == nil {
		t.Error("ccache 3 output parsed")
	}
	if _, err := compilecache.ParseSccacheStats([]byte("Compile requests 2\n")); err == nil {
		t.Error("sccache text output parsed as JSON")
	}
}

func TestStatsRate(t *testing.T) {
	s := compilecache.Stats{Hits: 9, Misses: 1, RemoteHits: 9}
	if s.Compiles() != 10 || remoteRate(s) != 0.9 {
		t.Errorf("%+v: %d compiles, rate %v", s, s.Compiles(), remoteRate(s))
	}
	if remoteRate(compilecache.Stats{}) != 0 {
		t.Error("rate of nothing")
	}
}

// remoteRate is the share of cacheable compiles the remote served.
func remoteRate(s compilecache.Stats) float64 {
	if s.Compiles() == 0 {
		return 0
	}
	return float64(s.RemoteHits) / float64(s.Compiles())
}
