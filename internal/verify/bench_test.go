package verify

import (
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// BenchmarkDynamicSection compares the two ways the link check could read a
// binary's NEEDED and RUNPATH: debug/elf in process (what it does) and
// running `readelf -d` (the alternative). Run with
// go test -run XXX -bench DynamicSection ./verify/
func BenchmarkDynamicSection(b *testing.B) {
	dir := b.TempDir()
	src := filepath.Join(dir, "m.c")
	bin := filepath.Join(dir, "m")
	if err := os.WriteFile(src, []byte("int main(void) { return 0; }\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	gccPath, err := exec.LookPath("gcc")
	if err != nil {
		b.Skip("gcc not installed")
	}
	if _, err := proc.Run(context.Background(), proc.Cmd{Path: gccPath, Args: []string{"-o", bin, src, "-Wl,-rpath,/opt/x/lib"}}); err != nil {
		b.Fatal(err)
	}
	b.Run("debug-elf", func(b *testing.B) {
		for b.Loop() {
			ef, err := elf.Open(bin)
			if err != nil {
				b.Fatal(err)
			}
			if n, _ := ef.DynString(elf.DT_NEEDED); len(n) == 0 {
				b.Fatal("no NEEDED")
			}
			ef.DynString(elf.DT_RUNPATH)
			ef.Close()
		}
	})
	readelf, err := exec.LookPath("readelf")
	if err != nil {
		b.Skip("readelf not installed")
	}
	b.Run("readelf", func(b *testing.B) {
		for b.Loop() {
			if _, err := proc.Run(context.Background(), proc.Cmd{Path: readelf, Args: []string{"-d", bin}}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
