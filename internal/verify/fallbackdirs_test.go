package verify

import (
	"debug/elf"
	"slices"
	"testing"
)

// TestFallbackDirsFollowTheMachine: without its loader's answer, a file's
// default search path is its own machine's Debian multiarch folders
// (aarch64-linux-gnu for an arm64 binary), never another machine's.
func TestFallbackDirsFollowTheMachine(t *testing.T) {
	for _, tt := range []struct {
		class   elf.Class
		machine elf.Machine
		want    []string
	}{
		{elf.ELFCLASS64, elf.EM_AARCH64, []string{"/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}},
		{elf.ELFCLASS64, elf.EM_X86_64, []string{"/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib"}},
		{elf.ELFCLASS32, elf.EM_386, []string{"/lib/i386-linux-gnu", "/usr/lib/i386-linux-gnu", "/lib", "/usr/lib"}},
		{elf.ELFCLASS64, elf.EM_SPARCV9, []string{"/lib64", "/usr/lib64", "/lib", "/usr/lib"}},
	} {
		if got := fallbackDirs(tt.class, tt.machine); !slices.Equal(got, tt.want) {
			t.Errorf("fallbackDirs(%v, %v) = %v, want %v", tt.class, tt.machine, got, tt.want)
		}
	}
}
