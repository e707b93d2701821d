// Package jobserver is a client of GNU make's jobserver, which Cargo runs
// for its build scripts (CARGO_MAKEFLAGS): a pipe or a named fifo holding
// one byte, a token, per job the build may run beside the ones running.
// A process holds one implicit token; each further job needs a token read
// from the jobserver and written back when the job is done.
package jobserver
