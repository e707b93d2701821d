package proc

import (
	"context"
	"testing"
)

// BenchmarkRun measures what the supervisor costs per program: `true` run
// through it, side by side with the same program started directly in its
// own process group (how Run started programs before, and still does on
// macOS).
// go test -bench=Run -run='^$' ./internal/proc
func BenchmarkRun(b *testing.B) {
	for _, s := range []struct {
		name string
		s    starter
	}{{"supervised", supervisedStarter{}}, {"direct", groupStarter{}}} {
		b.Run(s.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := run(context.Background(), Cmd{Path: "true"}, s.s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
