// Package toolchain finds the compilers and tools a build needs and says what
// they can do: the ROCm root (ROCM_PATH, /opt/rocm, or Debian's multiarch
// layout under /usr), the CUDA toolkit (CUDA_HOME, /usr/local/cuda, nvcc on
// PATH), their versions, the CMake settings each layout needs, and whether a
// GPU architecture can be compiled at all. It runs programs only through
// package proc, and only to ask versions or to compile a probe.
package toolchain
