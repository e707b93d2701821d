package proc

import (
	"context"
	"testing"
	"time"
)

// BenchmarkRun measures what the supervisor costs per program: `true` run
// through it, side by side with the same program started directly in its
// own process group (how Run started programs before, and still does on
// macOS), and through a supervisor Prestart started 5 ms before (outside
// the timer: about what a no-op build spends preparing and materializing
// meanwhile), which is what a build's Ninja run waits for now.
// go test -bench=Run -run='^$' ./internal/proc
func BenchmarkRun(b *testing.B) {
	for _, s := range []struct {
		name string
		s    starter
	}{{"supervised", supervisedStarter{}}, {"direct", groupStarter{}}} {
		b.Run(s.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := run(context.Background(), Cmd{Path: "true"}, s.s, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("prestarted", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			b.StopTimer()
			release := Prestart()
			time.Sleep(5 * time.Millisecond)
			b.StartTimer()
			if _, err := Run(context.Background(), Cmd{Path: "true"}); err != nil {
				b.Fatal(err)
			}
			b.StopTimer()
			if warm.Load() != nil {
				b.Fatal("Run did not take the prestarted supervisor")
			}
			release()
			b.StartTimer()
		}
	})
}
