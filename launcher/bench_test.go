package launcher_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/launcher"
)

// BenchmarkCheckoutB times checkout B's whole build of the example's ROCm
// tree (configure and build, empty build directory and local cache) side by
// side: "none" without a launcher; "redis-warm" through ccache with a Redis
// that checkout A filled; "redis-cold" through ccache with an empty Redis
// (what turning the cache on costs the first machine). Report the ratios of
// ns/op to "none".
//
//	go test -run '^$' -bench CheckoutB -benchtime 3x ./launcher
func BenchmarkCheckoutB(b *testing.B) {
	rocm := needROCm(b)
	ctx := context.Background()
	r := startRedis(b)
	cfg := &launcher.Config{Tool: "ccache", Remote: r.URL}
	work := b.TempDir()
	build(b, ctx, rocm, newCheckout(b, filepath.Join(work, "a")), cfg, nil)
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
			build(b, ctx, rocm, co, nil, nil)
		}
	})
	b.Run("redis-warm", func(b *testing.B) {
		var rate float64
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			co := fresh()
			b.StartTimer()
			st, _ := build(b, ctx, rocm, co, cfg, nil)
			rate += st.RemoteRate()
		}
		b.ReportMetric(100*rate/float64(b.N), "%remote")
	})
	b.Run("redis-cold", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			co := fresh()
			flushAll(b, r.Port)
			b.StartTimer()
			st, _ := build(b, ctx, rocm, co, cfg, nil)
			if st.Hits != 0 {
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
