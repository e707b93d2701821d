// Package overlays makes the per-backend source tree that CMake builds: the
// pristine MLX checkout at the pin (Pristine), with a directory of whole-file
// overlays applied on top (Materialize). It also reads the overlay alone
// (OverlayFiles) so the cache stamp can name the overlay file that changed.
//
// The tree is kept exact and cheap to keep: files are copied, never linked,
// so writing through the tree cannot change the pristine checkout; a file
// whose content is already right is never rewritten, so its mtime and inode
// stay and nothing recompiles; every write is a temporary file renamed over
// the final name, so a killed run leaves old or new files, never torn ones,
// and the next run converges.
//
// It is mlxbuild's own API, not supported for parent repositories: a
// parent's magefile imports targets, and reads a build's link plan with
// backends/linkplan.
package overlays
