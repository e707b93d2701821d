package cargoworkspace

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// standInSoname is the stand-in HIP runtime's soname. Debian 12's is
// libamdhip64.so.5, in a system directory: an executable that found the
// stand-in found it through its run path, and one without a run path does
// not start at all, as with ROCm under /opt/rocm.
const standInSoname = "libamdhip64.so.6"

// standInROCm makes a ROCm root outside the loader's default directories:
// Debian's ROCm 5.2 compiles for it (its headers, compilers, device
// libraries and CMake packages are linked in), but the HIP runtime in its
// lib/x86_64-linux-gnu is a stand-in built here from the function names of
// Debian's libamdhip64, each returning hipErrorNoDevice (100), as the real
// one does on a machine without a GPU.
func standInROCm(t *testing.T, dir string) string {
	t.Helper()
	const debianLib = "/usr/lib/x86_64-linux-gnu"
	lib := filepath.Join(dir, "lib", "x86_64-linux-gnu")
	for _, d := range []string{filepath.Join(dir, "bin"), lib} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		filepath.Join(dir, "include"):       "/usr/include",
		filepath.Join(dir, "llvm"):          "/usr/lib/llvm-15",
		filepath.Join(lib, "cmake"):         filepath.Join(debianLib, "cmake"),
		filepath.Join(lib, "amdgcn"):        filepath.Join(debianLib, "amdgcn"),
		filepath.Join(lib, "libhiprand.so"): filepath.Join(debianLib, "libhiprand.so"),
	}
	for link, target := range links {
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range []string{"hipcc", "hipconfig"} {
		if err := os.WriteFile(filepath.Join(dir, "bin", tool), []byte("#!/bin/sh\nexec /usr/bin/"+tool+" \"$@\"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	syms := testutil.RunOK(t, nil, "", "nm", "-D", "--defined-only", "--without-symbol-versions", filepath.Join(debianLib, "libamdhip64.so"))
	seen := map[string]bool{}
	for _, line := range strings.Split(syms, "\n") {
		if f := strings.Fields(line); len(f) == 3 && (f[1] == "T" || f[1] == "W") {
			seen[f[2]] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	if len(names) < 100 {
		t.Fatalf("Debian's libamdhip64 exports %d functions, expected hundreds:\n%s", len(names), syms)
	}
	var src strings.Builder
	src.WriteString("/* A stand-in HIP runtime: no device, every call fails as without a GPU. */\n")
	for _, n := range names {
		if strings.HasSuffix(n, "ErrorName") || strings.HasSuffix(n, "ErrorString") {
			fmt.Fprintf(&src, "const char* %s() { return \"hipErrorNoDevice\"; }\n", n)
			continue
		}
		fmt.Fprintf(&src, "int %s() { return 100; }\n", n)
	}
	c := filepath.Join(t.TempDir(), "amdhip64.c")
	testutil.WriteFile(t, c, src.String())
	so := filepath.Join(lib, standInSoname)
	testutil.RunOK(t, nil, "", "cc", "-shared", "-fPIC", "-w", "-Wl,-soname,"+standInSoname, "-o", so, c)
	if err := os.Symlink(standInSoname, filepath.Join(lib, "libamdhip64.so")); err != nil {
		t.Fatal(err)
	}
	return dir
}
