package flow

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// SetupPackages are the Debian/Ubuntu packages the tests and the bundled
// example need: the build tools, Debian's ROCm 5.2 toolchain (with
// librocrand-dev, without which hiprand.h does not compile), BLAS/LAPACK for
// the CPU link, ccache/sccache and Redis for the shared compile cache,
// clang-check for the compilation database, cargo for the Rust consumer,
// the crates examples/cargo-workspace builds with, from Debian's registry under /usr/share/cargo/registry (used
// through Cargo source replacement, so no crate comes from the network),
// and what real MLX needs from the system.
var SetupPackages = []string{
	"cmake", "ninja-build", "git", "g++", "binutils", "rsync", "file",
	"libopenblas-dev", "liblapack-dev",
	// Real MLX: lapacke.h (liblapack-dev lacks it) and fmt for the
	// system provider of the fmt dependency (USE_SYSTEM_FMT=ON).
	"liblapacke-dev", "libfmt-dev",
	"hipcc", "libamdhip64-dev", "libhiprand-dev", "librocrand-dev", "libhiprtc-builtins5",
	"rocm-device-libs", "libhsa-runtime-dev", "rocminfo", "rocm-smi",
	"ccache", "sccache", "redis-server",
	// zip: a dependency archive test makes a zip with Info-ZIP.
	"zip",
	// clang-check: a clang tool reads the completed compile_commands.json.
	"clang-tools-15",
	"librust-cc-dev", "librust-cxx-dev", "librust-cxx-build-dev",
}

// Setup installs the missing SetupPackages with apt-get on Debian and
// Ubuntu (as root), and elsewhere prints what to install. cargo counts as
// present when it is on PATH (rustup) or installed as a package.
func Setup(ctx context.Context, o Options) error {
	o = o.withDefaults()
	pr := o.printer()
	if !debianLike() {
		pr.Warn("setup installs packages only on Debian and Ubuntu; on this system install the equivalents of:")
		pr.Info("%s", strings.Join(SetupPackages, " "))
		return nil
	}
	want := append([]string(nil), SetupPackages...)
	if !onPath("cargo") {
		want = append(want, "cargo")
	}
	missing, err := missingPackages(ctx, want)
	if err != nil {
		return err
	}
	if len(missing) == 0 {
		pr.Done("every package the tests and the example need is installed (%d checked)", len(want))
		return nil
	}
	pr.Step("installing %d missing packages: %s", len(missing), strings.Join(missing, " "))
	if os.Geteuid() != 0 {
		return fmt.Errorf("setup needs root to install packages; run as root, or install them yourself:\n  sudo apt-get update && sudo apt-get install -y %s", strings.Join(missing, " "))
	}
	env := append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
	if _, err := proc.Run(ctx, proc.Cmd{Path: "apt-get", Args: []string{"update", "-qq"}, Env: env, Stdout: o.Stderr, Stderr: o.Stderr}); err != nil {
		return fmt.Errorf("apt-get update failed: %w", err)
	}
	args := append([]string{"install", "-y", "-qq", "--no-install-recommends"}, missing...)
	if _, err := proc.Run(ctx, proc.Cmd{Path: "apt-get", Args: args, Env: env, Stdout: o.Stderr, Stderr: o.Stderr}); err != nil {
		return fmt.Errorf("apt-get install failed: %w", err)
	}
	pr.Done("installed %s", strings.Join(missing, " "))
	return nil
}

func debianLike() bool {
	f, err := os.Open("/etc/os-release")
	if err != nil {
		return false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok || (k != "ID" && k != "ID_LIKE") {
			continue
		}
		for _, id := range strings.Fields(strings.Trim(v, `"`)) {
			if id == "debian" || id == "ubuntu" {
				return true
			}
		}
	}
	return false
}

// missingPackages asks dpkg which of pkgs are not installed.
func missingPackages(ctx context.Context, pkgs []string) ([]string, error) {
	args := append([]string{"-W", "-f=${Package} ${db:Status-Abbrev}\n"}, pkgs...)
	res, _ := proc.Run(ctx, proc.Cmd{Path: "dpkg-query", Args: args})
	installed := map[string]bool{}
	sc := bufio.NewScanner(strings.NewReader(string(res.Stdout)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) >= 2 && strings.HasPrefix(f[1], "ii") {
			installed[strings.Split(f[0], ":")[0]] = true
		}
	}
	var missing []string
	for _, p := range pkgs {
		if !installed[p] {
			missing = append(missing, p)
		}
	}
	return missing, nil
}

func onPath(name string) bool {
	_, err := lookPath(name)
	return err == nil
}
