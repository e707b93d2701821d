package backends

import (
	"debug/elf"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"syscall"

	"github.com/mlxbuild/mlxbuild/internal/multiarch"
)

// foreignProgram explains a toolchain program the kernel would not run:
// an ELF file built for another machine (an x86-64 CUDA toolkit under
// CUDA_HOME on a GB10, or an arm64 root entered without binfmt_misc's
// qemu handler). It returns "" for any other failure. proc's errors keep
// only the text of the exec error, hence the text test.
func foreignProgram(program string, err error) string {
	if err == nil || (!errors.Is(err, syscall.ENOEXEC) && !strings.Contains(err.Error(), syscall.ENOEXEC.Error())) {
		return ""
	}
	f, ferr := elf.Open(program)
	if ferr != nil {
		return ""
	}
	defer f.Close()
	host := multiarch.Host()
	its, ok := multiarch.ForELF(f.Machine)
	if !ok {
		its = f.Machine.String()
	}
	if its == host {
		return ""
	}
	return fmt.Sprintf("%s is a program for %s, and this host is %s (%s): install the toolchain built for %s, or register an emulator for %s in /proc/sys/fs/binfmt_misc",
		program, strings.TrimSuffix(its, "-linux-gnu"), strings.TrimSuffix(host, "-linux-gnu"), runtime.GOARCH, strings.TrimSuffix(host, "-linux-gnu"), strings.TrimSuffix(its, "-linux-gnu"))
}
