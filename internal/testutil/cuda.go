package testutil

import (
	"os"
	"path/filepath"
	"testing"
)

// cuda13Code and cuda13Arch are the lists a stand-in CUDA 13.0 nvcc
// prints for --list-gpu-code and --list-gpu-arch: CUDA 13 dropped
// sm_50 to sm_72 (Maxwell, Pascal, Volta) and lists the a and f
// (12.9+) forms of the newest chips.
const (
	cuda13Code = "sm_75 sm_80 sm_86 sm_87 sm_88 sm_89 sm_90 sm_90a sm_100 sm_100a sm_100f sm_103 sm_103a sm_103f sm_110 sm_110a sm_110f sm_120 sm_120a sm_120f sm_121 sm_121a sm_121f"
	cuda13Arch = "compute_75 compute_80 compute_86 compute_87 compute_88 compute_89 compute_90 compute_90a compute_100 compute_100a compute_100f compute_103 compute_103a compute_103f compute_110 compute_110a compute_110f compute_120 compute_120a compute_120f compute_121 compute_121a compute_121f"
)

// cuda13Nvcc is the script of a stand-in for CUDA 13.0's nvcc (CI has no CUDA): its
// version, its two lists, and for any compile the host compiler check of
// crt/host_config.h, word for word: a g++ (-ccbin, else g++ on PATH)
// whose -dumpversion is later than 14 is refused, unless
// -allow-unsupported-compiler is given. A compile it accepts writes its
// -o file.
func cuda13Nvcc(code, arch string) string {
	return `#!/bin/sh
case "$1" in
--version) cat <<'EOF'
nvcc: NVIDIA (R) Cuda compiler driver
Copyright (c) 2005-2025 NVIDIA Corporation
Built on Wed_Aug_20_01:58:59_PM_PDT_2025
Cuda compilation tools, release 13.0, V13.0.88
Build cuda_13.0.r13.0/compiler.36424714_0
EOF
exit 0 ;;
--list-gpu-code) for a in ` + code + `; do echo $a; done; exit 0 ;;
--list-gpu-arch) for a in ` + arch + `; do echo $a; done; exit 0 ;;
esac
host=g++ out= prev=
for a in "$@"; do
	case "$a" in -allow-unsupported-compiler) allow=1 ;; esac
	case "$prev" in -ccbin) host=$a ;; -o) out=$a ;; esac
	prev=$a
done
major=$("$host" -dumpversion 2>/dev/null | cut -d. -f1)
if [ -z "$allow" ] && [ "${major:-0}" -gt 14 ]; then
	echo "$(dirname "$0")/../targets/x86_64-linux/include/crt/host_config.h:143:2: error: #error -- unsupported GNU version! gcc versions later than 14 are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check; however, using an unsupported host compiler may cause compilation failure or incorrect run time execution. Use at your own risk." >&2
	echo "  143 |  #error -- unsupported GNU version! gcc versions later than 14 are not supported! The nvcc flag '-allow-unsupported-compiler' can be used to override this version check; however, using an unsupported host compiler may cause compilation failure or incorrect run time execution. Use at your own risk." >&2
	exit 1
fi
[ -n "$out" ] && : > "$out"
exit 0
`
}

// FakeCUDA13 lays out a CUDA 13.0 toolkit under a new temporary folder
// (its root, for CUDA_HOME) whose bin/nvcc is the stand-in above.
func FakeCUDA13(t testing.TB) string {
	t.Helper()
	return FakeCUDA13Listing(t, cuda13Code, cuda13Arch)
}

// FakeCUDA13Listing is FakeCUDA13 whose nvcc lists code for
// --list-gpu-code and arch for --list-gpu-arch (space-separated names):
// how far a toolkit's lists show the a and f forms differs, and what
// mlxbuild concludes must not depend on it.
func FakeCUDA13Listing(t testing.TB, code, arch string) string {
	t.Helper()
	root := t.TempDir()
	WriteFile(t, filepath.Join(root, "lib64", "libcudart.so.13"), "")
	nvcc := filepath.Join(root, "bin", "nvcc")
	WriteFile(t, nvcc, cuda13Nvcc(code, arch))
	if err := os.Chmod(nvcc, 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// FakeGXX writes an executable g++ stand-in in a new temporary folder
// that answers -dumpversion with major (what nvcc's check reads) and
// returns its path, for CUDAHOSTCXX.
func FakeGXX(t testing.TB, major string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "g++-"+major)
	WriteFile(t, p, "#!/bin/sh\necho "+major+"\n")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
