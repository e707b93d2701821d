// Package gpurun runs mlxbuild's CUDA flow end to end on a machine with an
// NVIDIA GPU: build:cuda of the bundled example through job.Build with the
// architectures the GPU's own nvidia-smi reports, the C++ consumer linked
// with the link plan's ldflags.txt and started with LD_LIBRARY_PATH unset
// (it launches the overlay's kernel and checks every element against the
// CPU), and cuobjdump showing the code object's architecture.
//
// The flow is its test (TestCUDAEndToEnd). Without a GPU, as in CI, the test
// is reported as not run. This file's package holds the two parts of it that
// are worth testing everywhere: finding the GPUs and reading ldflags.txt.
// docs/gpu-runs.md records the runs on real GPUs.
package gpurun
