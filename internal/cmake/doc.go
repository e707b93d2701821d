// Package cmake drives CMake and Ninja: Configure runs the configure
// step with the Ninja generator and compile_commands.json; Build runs Ninja
// itself (so a no-op costs what Ninja's costs), shows its progress as one
// updating line on a terminal or plain lines elsewhere, keeps the full log in
// a file, and reports the first compiler error with its file:line and the
// log's path. DefaultJobs picks a parallelism that fits in memory.
package cmake
