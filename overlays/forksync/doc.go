// Package forksync keeps a vendored overlay in step with where its files
// come from, and shows what a pin bump would break.
//
// An overlay vendored from a fork (configs.Fork) has three kinds of files:
// the fork's backend directories (Fork.Dirs, copied whole), MLX core files
// the fork changed and the overlay carries retargeted to the MLX pin
// (Fork.Core), and local-only files the fork does not have. The records
// UPSTREAM (fork commit, the fork's merge base with MLX, the pin the overlay
// was retargeted to) and LOCAL_FIXES.md (every local change) sit at the
// overlay's root.
//
//   - Sync moves the overlay to a newer fork commit with three-way merges
//     (git merge-file), staged beside the overlay and swapped in only when
//     every file merged cleanly.
//   - Drift says, for each core file, which upstream hunks between the
//     recorded pin and a candidate pin the overlay does not contain: a
//     whole-file overlay silently reverts them.
//   - APIDrift (in internal/flow, configured as the backend's build is)
//     builds the overlay on the candidate pin in a scratch tree and reports
//     compile errors and undefined symbols.
//   - Records lists LOCAL_FIXES.md's items with their status.
//   - CheckRecords holds the overlay against the fork commit and the pin, as
//     the reference's overlay tool does: every backend file that differs
//     from the fork is named in LOCAL_FIXES.md, and each core file's
//     residual beyond "pin + fork delta" is the one CORE_RESIDUAL.diff
//     records.
//   - Retarget moves the core files to a new MLX pin with three-way merges,
//     staged like a sync; a re-run after a conflict takes the files the user
//     resolved in the overlay since.
//
// Git always runs with the GIT_* variables of the environment removed, no
// prompts, and mlxbuild's own identity, so a hook's GIT_DIR or a user's
// configuration cannot point it elsewhere.
//
// It is mlxbuild's own API, not supported for parent repositories: a
// parent's magefile imports targets, and reads a build's link plan with
// backends/linkplan.
package forksync
