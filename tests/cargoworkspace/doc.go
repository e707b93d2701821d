// Package cargoworkspace runs examples/cargo-workspace with real Cargo, the
// real linker and readelf: a library crate whose build script builds MLX
// (the bundled minimlx) through `mage build:cargo` and compiles a C++
// bridge with the cc crate, and a binary crate that depends on it; and
// examples/cargo-consumer, whose build script forwards a prior build's plan.
package cargoworkspace
