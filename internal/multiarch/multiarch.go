// Package multiarch names Debian's per-architecture library folders
// (/usr/lib/x86_64-linux-gnu, /usr/lib/aarch64-linux-gnu): the rules that
// used to spell x86_64 follow the host, or the ELF file at hand, instead.
package multiarch

import (
	"debug/elf"
	"runtime"
)

// tuples are Debian's multiarch tuples by Go architecture, for the
// architectures Debian and CUDA or ROCm ship for, and a few more.
var tuples = map[string]string{
	"amd64":    "x86_64-linux-gnu",
	"arm64":    "aarch64-linux-gnu",
	"ppc64le":  "powerpc64le-linux-gnu",
	"riscv64":  "riscv64-linux-gnu",
	"s390x":    "s390x-linux-gnu",
	"386":      "i386-linux-gnu",
	"arm":      "arm-linux-gnueabihf",
	"loong64":  "loongarch64-linux-gnu",
	"mips64le": "mips64el-linux-gnuabi64",
}

// For is Debian's multiarch tuple for a Go architecture (GOARCH); an
// architecture it does not know gets "<goarch>-linux-gnu".
func For(goarch string) string {
	if t, ok := tuples[goarch]; ok {
		return t
	}
	return goarch + "-linux-gnu"
}

// Host is For the architecture this binary was built for: a static
// GOARCH=arm64 mlxbuild on an aarch64 host looks in aarch64-linux-gnu.
func Host() string { return For(runtime.GOARCH) }

// elfArch maps the ELF machines of tuples to their Go architecture.
var elfArch = map[elf.Machine]string{
	elf.EM_X86_64:  "amd64",
	elf.EM_AARCH64: "arm64",
	elf.EM_PPC64:   "ppc64le",
	elf.EM_RISCV:   "riscv64",
	elf.EM_S390:    "s390x",
	elf.EM_386:     "386",
	elf.EM_ARM:     "arm",
}

// ForELF is the multiarch tuple of an ELF file's machine (what its
// loader searches), and false for a machine it does not know.
func ForELF(m elf.Machine) (string, bool) {
	goarch, ok := elfArch[m]
	if !ok {
		return "", false
	}
	return For(goarch), true
}
