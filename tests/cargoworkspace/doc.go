// Package cargoworkspace runs examples/cargo-workspace with real Cargo, the
// real linker and readelf: the links crate mlx-sys, whose build script
// builds MLX (the bundled minimlx) through `mage build:cargo` and compiles a
// C++ bridge with the cc crate, the library engine on it and the binary
// crates cli and bench-tool on engine, whose every executable must start
// through its run path; and examples/cargo-consumer, whose build script
// forwards a prior build's plan.
package cargoworkspace
