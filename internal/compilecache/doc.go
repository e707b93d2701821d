// Package compilecache puts a compiler launcher (ccache or sccache) in front of
// every compile of a backend's build, so that a team and its CI share the
// objects through a remote store (Redis, an HTTP server) instead of each
// machine paying for a cold MLX build.
//
// It turns the project file's `launcher:` (and the MLXBUILD_LAUNCHER and
// MLXBUILD_LAUNCHER_REMOTE overrides) into CMake defines and the build's
// environment, reads the launcher's statistics for the build summary, and
// checks for doctor that the tool is installed and the remote answers.
// Credentials come only from the environment; Redact strips them from
// anything meant for people. The launcher is deliberately not a stamp input:
// switching it on must not rebuild the tree; its defines are part of the
// configure record instead (see cache.Decide), so CMake reconfigures.
package compilecache
