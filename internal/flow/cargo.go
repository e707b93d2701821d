package flow

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// CargoTarget is the target a Cargo build script runs.
const CargoTarget = "build:cargo"

// BuildForCargo is the build a Cargo build script runs (`mage build:cargo`):
// the crate's CARGO_FEATURE_<BACKEND> variables choose the backend (none:
// cpu), conflicting features are refused by the same selection, with the
// same message, as `build:<backend>`; Cargo's NUM_JOBS caps the jobs unless
// MLXBUILD_JOBS is set, and Cargo's jobserver's free tokens cap them again
// when Ninja starts (cargoJobSlots). The cache stays the project's, not OUT_DIR, so a
// `mage verify:rocm` before `cargo test` leaves this run nothing to do.
// On success the link plan's cargo.txt goes to stdout, which Cargo reads
// as the build script's directives; progress goes to stderr, which Cargo
// shows when the script fails.
//
// Warnings (no GPU found, a dependency built without, CMake's configure
// warnings) also go to stdout as `cargo:warning=` lines, the only output of
// a successful build script that Cargo shows; so does the error of a
// failed build.
//
// With MLXBUILD_CHECK_ONLY=1 or DOCS_RS set (editors, lint jobs, docs.rs;
// configs.CheckOnly) it builds nothing: see checkOnlyForCargo.
func BuildForCargo(ctx context.Context, o Options) (*Summary, error) {
	o = o.withDefaults()
	stdout := o.Stdout
	o.warnings = func(msg string) {
		fmt.Fprintf(stdout, "cargo:warning=%s\n", strings.Join(strings.Fields(msg), " "))
	}
	env, err := cargoEnv(o.Env)
	if err != nil {
		o.warnings("error: " + fail.Message(err)) // with its fix: where Cargo's -j comes from
		return nil, err
	}
	o.Env = env
	checkOnly, why, err := configs.CheckOnly(o.Env)
	if err != nil {
		o.warnings("error: " + err.Error())
		return nil, err
	}
	if checkOnly {
		sum, err := checkOnlyForCargo(ctx, o, why)
		if err != nil && ctx.Err() == nil && fail.KindOf(err) != fail.Interrupted {
			o.warnings("error: " + err.Error())
		}
		return sum, err
	}
	o.jobSlots = cargoJobSlots(o.Env)
	sum, err := buildAs(ctx, o, CargoTarget, "")
	if err != nil {
		// Cargo prints a failed script's warnings first, above its whole
		// stdout and stderr (every step Ninja ran): the error, with the
		// first compiler error's file:line and the full log's path, is
		// then the line a user reads.
		// An interrupt is no error to read there: the target says it once.
		if ctx.Err() == nil && fail.KindOf(err) != fail.Interrupted {
			o.warnings("error: " + err.Error())
		}
		return nil, err
	}
	if err := backdateRelink(sum.Relink, o.Env); err != nil {
		return nil, err
	}
	plan, err := os.ReadFile(filepath.Join(sum.Out, "cargo.txt"))
	if err != nil {
		return nil, fmt.Errorf("reading the link plan the build just wrote: %w", err)
	}
	if _, err := o.Stdout.Write(plan); err != nil {
		return nil, err
	}
	return sum, nil
}

// cargoEnv maps Cargo's build script variables to mlxbuild's: NUM_JOBS
// (what `cargo build -j` allows) stands in for an unset MLXBUILD_JOBS. It
// is checked here, where its name is known: past the mapping a bad value
// would be reported as MLXBUILD_JOBS's, which the user never set.
func cargoEnv(env func(string) string) (func(string) string, error) {
	if env("MLXBUILD_JOBS") == "" {
		if n := env("NUM_JOBS"); n != "" {
			if err := configs.CheckJobs("NUM_JOBS", n); err != nil {
				return nil, fail.WithFix(err, "Cargo sets NUM_JOBS from -j or build.jobs; fix that, or set MLXBUILD_JOBS, which wins")
			}
		}
	}
	return func(k string) string {
		v := env(k)
		if k == "MLXBUILD_JOBS" && v == "" {
			return env("NUM_JOBS")
		}
		return v
	}, nil
}
