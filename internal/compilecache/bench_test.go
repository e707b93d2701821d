package compilecache_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// BenchmarkCheckoutB times checkout B's whole job.Build of the example's
// ROCm backend (what `mage build:rocm` does in a fresh checkout: tree,
// configure and build, with an empty cache) side by side: "none" with
// MLXBUILD_LAUNCHER=none; "redis-warm" through the project's ccache with a
// Redis that checkout A filled; "redis-cold" through ccache with an empty
// Redis (what turning the cache on costs the first machine). Report the
// ratios of ns/op to "none".
//
//	go test -run '^$' -bench CheckoutB -benchtime 3x ./launcher
func BenchmarkCheckoutB(b *testing.B) {
	needROCm(b)
	ctx := context.Background()
	r := startRedis(b)
	withRedis := remote(r.URL)
	work := b.TempDir()
	newCheckout(b, filepath.Join(work, "a")).build(b, ctx, withRedis, nil)
	n := 0
	fresh := func() checkout {
		n++
		return newCheckout(b, filepath.Join(work, "b"+strconv.Itoa(n)))
	}
	b.Run("none", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			co := fresh()
			b.StartTimer()
			co.build(b, ctx, remote(""), nil)
		}
	})
	b.Run("redis-warm", func(b *testing.B) {
		var rate float64
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			co := fresh()
			b.StartTimer()
			sum, _ := co.build(b, ctx, withRedis, nil)
			rate += remoteRate(launcherStats(b, "checkout B", sum))
		}
		b.ReportMetric(100*rate/float64(b.N), "%remote")
	})
	b.Run("redis-cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			co := fresh()
			flushAll(b, r.Port)
			b.StartTimer()
			sum, _ := co.build(b, ctx, withRedis, nil)
			if st := launcherStats(b, "checkout B", sum); st.Hits != 0 {
				b.Fatalf("cold build hit: %+v", st)
			}
		}
	})
}

// flushAll empties the Redis at port.
func flushAll(b *testing.B, port int) {
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprint(c, "*1\r\n$8\r\nFLUSHALL\r\n")
	if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || line != "+OK\r\n" {
		b.Fatalf("FLUSHALL: %q %v", line, err)
	}
}
