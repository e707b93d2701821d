package compilecache

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/proc"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// Stats are a launcher's counters since they were last zeroed.
type Stats struct {
	Hits         int // compiles served from a cache (local or remote)
	Misses       int // cacheable compiles that ran the compiler
	RemoteHits   int // of Hits, those served by the remote store
	RemoteErrors int // failed or timed-out remote reads and writes
	Uncacheable  int // calls the launcher passed through (links, unsupported flags)
}

// Compiles is the number of cacheable compiles, the base of hit rates.
func (s Stats) Compiles() int { return s.Hits + s.Misses }

// String is the summary line: "12 hits (11 remote), 1 miss, 0 remote errors".
func (s Stats) String() string {
	out := fmt.Sprintf("%s (%d remote), %s", plural.Count(s.Hits, "hit"), s.RemoteHits, plural.Count(s.Misses, "miss"))
	if s.RemoteErrors > 0 {
		out += fmt.Sprintf(", %s (the store did not answer; those compiles ran locally)", plural.Count(s.RemoteErrors, "remote error"))
	}
	return out
}

// ZeroStats zeroes the counters of the cache that env (from Setup) selects,
// so Stats after a build counts that build alone.
func (c *Config) ZeroStats(ctx context.Context, env []string) error {
	if c == nil {
		return nil
	}
	arg := "--zero-stats"
	_, err := c.run(ctx, env, arg)
	return err
}

// Stats reads the counters of the cache that env (from Setup) selects.
func (c *Config) Stats(ctx context.Context, env []string) (Stats, error) {
	if c == nil {
		return Stats{}, nil
	}
	switch c.Tool {
	case "ccache":
		out, err := c.run(ctx, env, "--print-stats")
		if err != nil {
			return Stats{}, err
		}
		return ParseCcacheStats(out)
	default:
		out, err := c.run(ctx, env, "--show-stats", "--stats-format=json")
		if err != nil {
			return Stats{}, err
		}
		return ParseSccacheStats(out)
	}
}

// Stop ends the sccache server that env selects (ccache has none), so no
// daemon outlives a test or a CI job. A server that is not running is fine.
func (c *Config) Stop(ctx context.Context, env []string) error {
	if c == nil || c.Tool != "sccache" {
		return nil
	}
	_, err := c.run(ctx, env, "--stop-server")
	if err != nil && strings.Contains(err.Error(), "couldn't connect to server") {
		return nil
	}
	return err
}

func (c *Config) run(ctx context.Context, env []string, args ...string) ([]byte, error) {
	tool, err := c.lookPath()
	if err != nil {
		return nil, err
	}
	res, err := proc.Run(ctx, proc.Cmd{Path: tool, Args: args, Env: append(os.Environ(), env...)})
	if err != nil {
		return nil, fmt.Errorf("%s %s: %s", c.Tool, strings.Join(args, " "), Redact(err.Error()))
	}
	return res.Stdout, nil
}

// ParseCcacheStats reads `ccache --print-stats` (ccache 4.x: one
// "name<TAB>value" line per counter).
func ParseCcacheStats(out []byte) (Stats, error) {
	v := map[string]int{}
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		name, val, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(strings.TrimSpace(val))
		if err != nil {
			continue
		}
		v[name] = count(n)
	}
	if _, ok := v["cache_miss"]; !ok {
		return Stats{}, fmt.Errorf("ccache --print-stats: no cache_miss counter in %d bytes of output; mlxbuild needs ccache 4.x (ccache --version)", len(out))
	}
	s := Stats{
		Hits:         v["direct_cache_hit"] + v["preprocessed_cache_hit"],
		Misses:       v["cache_miss"],
		RemoteHits:   v["remote_storage_hit"],
		RemoteErrors: v["remote_storage_error"] + v["remote_storage_timeout"],
	}
	for _, k := range []string{"called_for_link", "called_for_preprocessing", "unsupported_compiler_option",
		"unsupported_source_language", "unsupported_code_directive", "multiple_source_files", "no_input_file",
		"compile_failed", "preprocessor_error", "autoconf_test", "output_to_stdout"} {
		s.Uncacheable += v[k]
	}
	return s, nil
}

// sccacheStats is the part of `sccache --show-stats --stats-format=json`
// that Stats needs.
type sccacheStats struct {
	Stats struct {
		CacheHits        struct{ Counts map[string]int } `json:"cache_hits"`
		CacheMisses      struct{ Counts map[string]int } `json:"cache_misses"`
		CacheErrors      struct{ Counts map[string]int } `json:"cache_errors"`
		CacheTimeouts    int                             `json:"cache_timeouts"`
		CacheReadErrors  int                             `json:"cache_read_errors"`
		CacheWriteErrors int                             `json:"cache_write_errors"`
		NotCacheable     int                             `json:"requests_not_cacheable"`
		NotCompile       int                             `json:"requests_not_compile"`
		Unsupported      int                             `json:"requests_unsupported_compiler"`
	} `json:"stats"`
	Location string `json:"cache_location"`
}

// ParseSccacheStats reads `sccache --show-stats --stats-format=json`.
// sccache keeps its objects in one store: when that store is remote (the
// location is not "Local disk"), every hit is a remote hit.
func ParseSccacheStats(out []byte) (Stats, error) {
	var j sccacheStats
	if err := json.Unmarshal(out, &j); err != nil {
		return Stats{}, fmt.Errorf("sccache --show-stats --stats-format=json: %v; mlxbuild needs sccache 0.3 or newer", err)
	}
	st := j.Stats
	s := Stats{
		Hits:         sum(st.CacheHits.Counts),
		Misses:       sum(st.CacheMisses.Counts),
		RemoteErrors: sum(st.CacheErrors.Counts) + count(st.CacheTimeouts) + count(st.CacheReadErrors) + count(st.CacheWriteErrors),
		Uncacheable:  count(st.NotCacheable) + count(st.NotCompile) + count(st.Unsupported),
	}
	if j.Location == "" || strings.HasPrefix(j.Location, "Local disk") {
		s.RemoteErrors = 0 // a local disk's errors are not the remote's
	} else {
		s.RemoteHits = s.Hits
	}
	return s, nil
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += count(v)
	}
	return n
}

// maxCount bounds one counter, so that sums of a few cannot overflow.
const maxCount = 1 << 40

// count is a counter as a tool printed it, made a count: a negative one
// (a tool's bug, or garbage) is 0, an absurdly large one is capped.
func count(n int) int { return max(0, min(n, maxCount)) }
