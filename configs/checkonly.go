package configs

import (
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// CheckOnlyVar is mlxbuild's variable for editors and lint jobs (rust-
// analyzer, clippy, `cargo check`, `cargo doc`): set to 1, `build:cargo`
// materializes the tree and publishes what a bridge compiles with (the
// include directories, the defines, the C++ standard) and builds nothing.
// Cargo cannot say it for them: a build script under `cargo check` gets
// the same variables as under `cargo build`, and both share the script's
// output in one target directory.
const CheckOnlyVar = "MLXBUILD_CHECK_ONLY"

// DocsRSVar is the variable docs.rs sets (to 1) for the builds of the
// documentation it hosts; any value other than empty means docs.rs, as
// the crates that skip their native build there read it.
const DocsRSVar = "DOCS_RS"

// CheckOnly says whether a build script's run is to build nothing, and
// why (the variable that says so): MLXBUILD_CHECK_ONLY=1 or true, else
// DOCS_RS set; MLXBUILD_CHECK_ONLY=0 or false asks for the full build even
// on docs.rs. Any other value of MLXBUILD_CHECK_ONLY is a usage error that
// names it: a typo must not build MLX for an hour, or skip it silently.
func CheckOnly(env func(string) string) (on bool, why string, err error) {
	switch v := env(CheckOnlyVar); v {
	case "1", "true":
		return true, CheckOnlyVar + "=" + v, nil
	case "0", "false":
		return false, "", nil
	case "":
		if d := env(DocsRSVar); d != "" {
			return true, DocsRSVar + "=" + d, nil
		}
		return false, "", nil
	default:
		return false, "", fail.Configf("%s=%q: set it to 1 (editors and lint jobs: publish the tree's compile flags, build nothing) or 0 (build as usual), or leave it unset", CheckOnlyVar, v)
	}
}
