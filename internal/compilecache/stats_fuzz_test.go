package compilecache_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/compilecache"
)

// Seeds (testdata/fuzz/<name>/) are ccache 4.7.5's --print-stats and
// sccache 0.4.0-pre's JSON recorded on this machine, local and remote, and
// edge cases (negative and overflowing counters).

// statsSane: counters are counts, whatever the tool printed.
func statsSane(t *testing.T, s compilecache.Stats, out []byte) {
	t.Helper()
	for name, n := range map[string]int{"hits": s.Hits, "misses": s.Misses, "remote hits": s.RemoteHits,
		"remote errors": s.RemoteErrors, "uncacheable": s.Uncacheable, "compiles": s.Compiles()} {
		if n < 0 {
			t.Fatalf("%s = %d from %q", name, n, out)
		}
	}
	if s.RemoteHits > s.Hits && s.Hits > 0 && strings.HasPrefix(string(out), "{") {
		t.Fatalf("sccache: %d remote hits of %d hits", s.RemoteHits, s.Hits)
	}
}

// FuzzParseCcacheStats: any output gives sane counters or an error that
// says which ccache is needed; counters printed in ccache's format read
// back as printed.
func FuzzParseCcacheStats(f *testing.F) {
	f.Fuzz(func(t *testing.T, out []byte, direct, pre, miss, remote uint16) {
		s, err := compilecache.ParseCcacheStats(out)
		if err != nil {
			if !strings.Contains(err.Error(), "ccache 4.x") {
				t.Fatalf("error without the fix: %v", err)
			}
		} else {
			statsSane(t, s, out)
		}
		text := fmt.Sprintf("direct_cache_hit\t%d\npreprocessed_cache_hit\t%d\ncache_miss\t%d\nremote_storage_hit\t%d\ncalled_for_link\t3\n", direct, pre, miss, remote)
		s, err = compilecache.ParseCcacheStats([]byte(text))
		want := compilecache.Stats{Hits: int(direct) + int(pre), Misses: int(miss), RemoteHits: int(remote), Uncacheable: 3}
		if err != nil || s != want {
			t.Fatalf("%q read as %+v (%v), want %+v", text, s, err, want)
		}
	})
}

// FuzzParseSccacheStats: any output gives sane counters or an error that
// says which sccache is needed; a remote store's hits are all remote.
func FuzzParseSccacheStats(f *testing.F) {
	f.Fuzz(func(t *testing.T, out []byte) {
		s, err := compilecache.ParseSccacheStats(out)
		if err != nil {
			if !strings.Contains(err.Error(), "sccache 0.3") {
				t.Fatalf("error without the fix: %v", err)
			}
			return
		}
		statsSane(t, s, out)
	})
}
