package flow

import (
	"github.com/mlxbuild/mlxbuild/internal/jobserver"
)

// cargoJobSlots makes build:cargo a client of Cargo's jobserver
// (CARGO_MAKEFLAGS, else MAKEFLAGS: `cargo build -j N` allows N jobs in
// all, rustc's and every build script's). The build script's process holds
// one token; Ninja 1.11 takes no tokens itself, so before it starts
// mlxbuild takes those free now, up to jobs-1, and runs Ninja with one job
// more than it took; they go back when Ninja is done, failed or was
// interrupted. Without a jobserver it returns nil (jobs stay as they are);
// one that cannot be used leaves one job, the implicit token's, with a
// warning.
func cargoJobSlots(env func(string) string) func(int, func(string, ...any)) (int, func()) {
	flags := env("CARGO_MAKEFLAGS")
	if flags == "" {
		flags = env("MAKEFLAGS")
	}
	auth, ok, perr := jobserver.FromMakeflags(flags)
	if !ok {
		return nil
	}
	return func(jobs int, warn func(string, ...any)) (int, func()) {
		if perr != nil {
			warn("%v: building with 1 job", perr)
			return 1, func() {}
		}
		if jobs <= 1 {
			return jobs, func() {}
		}
		tokens, err := jobserver.Take(auth, jobs-1)
		if err != nil {
			warn("%v: building with 1 job", err)
			return 1, func() {}
		}
		return 1 + tokens.Count(), func() {
			if err := tokens.Release(); err != nil {
				warn("%v", err)
			}
		}
	}
}
