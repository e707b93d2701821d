package flow

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// SetupPackages are the Debian/Ubuntu packages the tests and the bundled
// example need: the build tools, Debian's ROCm 5.2 toolchain (with
// librocrand-dev, without which hiprand.h does not compile), BLAS/LAPACK for
// the CPU link, ccache/sccache and Redis for the shared compile cache,
// clang-check for the compilation database, the crates examples/cargo-workspace
// builds with, from Debian's registry under /usr/share/cargo/registry (used
// through Cargo source replacement, so no crate comes from the network),
// and what real MLX needs from the system. The Rust toolchain itself is
// rustPackages: it depends on the release.
var SetupPackages = []string{
	"cmake", "ninja-build", "git", "g++", "binutils", "rsync", "file",
	// make: the generator a plain `cmake -S . -B build` picks, for a
	// user's own CMake builds next to mlxbuild's; it is only a Recommends
	// of Debian's cmake, which --no-install-recommends leaves out.
	// mlxbuild and its tests always use Ninja.
	"make",
	"libopenblas-dev", "liblapack-dev",
	// Real MLX: lapacke.h (liblapack-dev lacks it) and fmt for the
	// system provider of the fmt dependency (USE_SYSTEM_FMT=ON).
	"liblapacke-dev", "libfmt-dev",
	"hipcc", "libamdhip64-dev", "libhiprand-dev", "librocrand-dev", "libhiprtc-builtins5",
	"rocm-device-libs", "libhsa-runtime-dev", "rocminfo", "rocm-smi",
	"ccache", "sccache", "redis-server",
	// zip: a dependency archive test makes a zip with Info-ZIP.
	"zip",
	// patchelf: bundle:<backend> rewrites run paths with it.
	"patchelf",
	// clang-check: a clang tool reads the completed compile_commands.json.
	"clang-tools-15",
	"librust-cc-dev", "librust-cxx-dev", "librust-cxx-build-dev",
}

// MinRust is the oldest Rust the Cargo examples and tests build with:
// their Cargo.lock files are version 4 (Cargo 1.78) and their build
// scripts use let-else (Rust 1.65). The examples' Cargo.toml files say
// the same (rust-version).
const MinRust = "1.78"

// debianCargo is where Debian's cargo packages (cargo, and cargo-web on
// Debian 12) install cargo.
const debianCargo = "/usr/bin/cargo"

// rustPackages are the Debian packages of the Rust toolchain the tests
// and the Cargo examples build with. Debian 12's own cargo and rustc
// (1.65/1.63) are older than MinRust; its security updates carry a
// current Rust as cargo-web and rustc-web (1.96 when written), which
// install /usr/bin/cargo and /usr/bin/rustc in their place (they conflict
// with cargo and rustc, and apt swaps them). Later releases' cargo is new
// enough.
func rustPackages(rel osRelease) []string {
	if rel["ID"] == "debian" && rel["VERSION_CODENAME"] == "bookworm" {
		return []string{"cargo-web", "rustc-web"}
	}
	return []string{"cargo"}
}

// Setup installs the missing SetupPackages and rustPackages with apt-get
// on Debian and Ubuntu (as root), and elsewhere prints what to install.
// apt's output goes to a log file (aptInstall); what was installed is one
// line.
func Setup(ctx context.Context, o Options) error {
	o = o.withDefaults()
	pr := o.printer()
	rel := readOSRelease(osReleasePath)
	want := append(append([]string(nil), SetupPackages...), rustPackages(rel)...)
	if !rel.debianLike() {
		pr.Warn("setup installs packages only on Debian and Ubuntu; on this system install the equivalents of:")
		pr.Info("%s (Rust %s or newer)", strings.Join(SetupPackages, " "), MinRust)
		return nil
	}
	missing, err := missingPackages(ctx, want)
	if err != nil {
		return err
	}
	if len(missing) == 0 {
		pr.Done("every package the tests and the example need is installed (%s checked)", plural.Count(len(want), "package"))
	} else {
		if !isRoot() {
			return fmt.Errorf("setup needs root to install packages; run as root, or install them yourself:\n  sudo apt-get update && sudo apt-get install -y --no-install-recommends %s", strings.Join(missing, " "))
		}
		if err := aptInstall(ctx, pr, missing); err != nil {
			return err
		}
		pr.Done("installed %s: %s", plural.Count(len(missing), "package"), strings.Join(missing, " "))
	}
	warnForeignCargo(pr)
	return nil
}

// warnForeignCargo says when the cargo on PATH is not the one setup
// installs: the tests and the Cargo examples run the first cargo on PATH,
// and a newcomer's machine has only Debian's.
func warnForeignCargo(pr interface{ Warn(string, ...any) }) {
	path, err := lookPath("cargo")
	if err != nil || path == debianCargo {
		return
	}
	pr.Warn("cargo on PATH is %s, not Debian's %s that setup installs; the tests and the Cargo examples use the first cargo on PATH (put /usr/bin first to test what a fresh Debian machine has)", path, debianCargo)
}

// isRoot is a seam for tests: apt-get needs root.
var isRoot = func() bool { return os.Geteuid() == 0 }
