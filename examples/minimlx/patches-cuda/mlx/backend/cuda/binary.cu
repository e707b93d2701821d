// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
//
// Element-wise add on the GPU, compiled ahead of time for every target in
// CMAKE_CUDA_ARCHITECTURES.
#include <cuda_runtime.h>

#include <cstddef>

namespace mlx::core::cu {

namespace {

__global__ void add_kernel(const float* a, const float* b, float* out, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) {
    out[i] = a[i] + b[i];
  }
}

} // namespace

#define MLX_CUDA_RETURN_IF_ERROR(expr)           \
  do {                                           \
    cudaError_t mlx_cuda_err__ = (expr);         \
    if (mlx_cuda_err__ != cudaSuccess) {         \
      return static_cast<int>(mlx_cuda_err__);   \
    }                                            \
  } while (0)

// device_count returns the number of CUDA devices, or the negated cudaError_t.
int device_count() {
  int n = 0;
  cudaError_t err = cudaGetDeviceCount(&n);
  if (err != cudaSuccess) {
    return -static_cast<int>(err);
  }
  return n;
}

// add computes out = a + b on the current device; it returns 0 or a cudaError_t.
int add(const float* a, const float* b, float* out, std::size_t n) {
  size_t bytes = n * sizeof(float);
  float *da = nullptr, *db = nullptr, *dout = nullptr;
  MLX_CUDA_RETURN_IF_ERROR(cudaMalloc(&da, bytes));
  MLX_CUDA_RETURN_IF_ERROR(cudaMalloc(&db, bytes));
  MLX_CUDA_RETURN_IF_ERROR(cudaMalloc(&dout, bytes));
  MLX_CUDA_RETURN_IF_ERROR(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
  MLX_CUDA_RETURN_IF_ERROR(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
  constexpr unsigned block = 256;
  unsigned grid = static_cast<unsigned>((n + block - 1) / block);
  add_kernel<<<grid, block>>>(da, db, dout, n);
  MLX_CUDA_RETURN_IF_ERROR(cudaGetLastError());
  MLX_CUDA_RETURN_IF_ERROR(cudaMemcpy(out, dout, bytes, cudaMemcpyDeviceToHost));
  MLX_CUDA_RETURN_IF_ERROR(cudaFree(da));
  MLX_CUDA_RETURN_IF_ERROR(cudaFree(db));
  MLX_CUDA_RETURN_IF_ERROR(cudaFree(dout));
  return 0;
}

} // namespace mlx::core::cu
