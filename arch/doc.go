// Package arch resolves the GPU targets a build compiles for and says where
// they came from.
//
// ROCm: MLX_ROCM_ARCHITECTURES wins; else the GPU nodes of the KFD topology
// in sysfs; else the GPU agents that rocminfo lists; else a spec's default
// list (with a warning); else a failure that names the variable and lists
// what was tried. CUDA: MLX_CUDA_ARCHITECTURES wins; else every row of
// nvidia-smi's compute_cap query; else a spec's default; else a failure.
//
// Every name is checked against a strict grammar before it can reach CMake
// or a command line, and gfx names are looked up in a table of known targets
// (family and wavefront size, from LLVM's AMDGPUUsage). Probes run through
// package proc with a timeout, so a hanging rocminfo costs seconds, not a CI
// job. The package knows nothing about CMake.
//
// It is mlxbuild's own API, not supported for parent repositories: a
// parent's magefile imports targets, and reads a build's link plan with
// backends/linkplan.
package arch
