package arch

import (
	"context"
	"testing"
	"time"
)

// BenchmarkProbe compares the two ROCm probes on fixtures, in one run:
//
//	go test -run '^$' -bench Probe -benchtime 2s ./arch
//
// kfd-sysfs reads a recorded host's KFD topology (three nodes); rocminfo
// starts a fake rocminfo that prints a recorded output. The fake costs one
// fork/exec of /bin/sh and cat; a real rocminfo also loads and initializes
// the HSA runtime, so the measured ratio is a lower bound of the real one.
func BenchmarkProbe(b *testing.B) {
	b.Run("kfd-sysfs", func(b *testing.B) {
		env := isolated(b, b.TempDir())
		env[envKFD] = "testdata/kfd/raphael-7900xtx"
		o := Options{Env: testEnv(env)}
		for b.Loop() {
			if targets, _, tried, _ := probeKFD(o); len(targets) != 2 {
				b.Fatalf("kfd probe: %v (%s)", targets, tried)
			}
		}
	})
	b.Run("rocminfo", func(b *testing.B) {
		bin := b.TempDir()
		catTool(b, bin, "rocminfo", "rocminfo/mixed-gfx1201-gfx1151-grep.txt", 0)
		o := Options{Env: testEnv(isolated(b, bin))}
		ctx := context.Background()
		for b.Loop() {
			if targets, _, tried, _ := probeRocminfo(ctx, o, 15*time.Second); len(targets) != 2 {
				b.Fatalf("rocminfo probe: %v (%s)", targets, tried)
			}
		}
	})
}
