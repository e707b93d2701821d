// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
//
// Element-wise binary ops, compiled ahead of time for every target in
// CMAKE_HIP_ARCHITECTURES. No lane shuffles here: the kernel is correct on
// wave32 and wave64 targets alike.
#include "mlx/backend/rocm/device.h"
#include "mlx/backend/rocm/kernel_port.h"

namespace mlx::core::rocm {

template <typename T>
__global__ void add_kernel(const T* a, const T* b, T* out, size_t n) {
  size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x;
  if (i < n) {
    out[i] = a[i] + b[i];
  }
}

using AddLaunch = void (*)(const void*, const void*, void*, size_t, hipStream_t);

template <typename T>
void launch_add(const void* a, const void* b, void* out, size_t n, hipStream_t stream) {
  constexpr unsigned block = 256;
  unsigned grid = static_cast<unsigned>((n + block - 1) / block);
  hipLaunchKernelGGL(
      add_kernel<T>, dim3(grid), dim3(block), 0, stream,
      static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), n);
}

constexpr KernelPort<AddLaunch> kAddPorts[] = {
    {Dtype::float32, &launch_add<float>},
    {Dtype::int32, &launch_add<int>},
};

// add_supported is the predicate the op's dispatcher asks.
bool add_supported() {
  return has_kernel_port(kAddPorts);
}

int add(const float* a, const float* b, float* out, std::size_t n) {
  if (!add_supported()) {
    return static_cast<int>(hipErrorNotSupported);
  }
  AddLaunch launch = select_kernel_port(kAddPorts, Dtype::float32);
  size_t bytes = n * sizeof(float);
  float *da = nullptr, *db = nullptr, *dout = nullptr;
  MLX_HIP_RETURN_IF_ERROR(hipMalloc(&da, bytes));
  MLX_HIP_RETURN_IF_ERROR(hipMalloc(&db, bytes));
  MLX_HIP_RETURN_IF_ERROR(hipMalloc(&dout, bytes));
  MLX_HIP_RETURN_IF_ERROR(hipMemcpy(da, a, bytes, hipMemcpyHostToDevice));
  MLX_HIP_RETURN_IF_ERROR(hipMemcpy(db, b, bytes, hipMemcpyHostToDevice));
  launch(da, db, dout, n, nullptr);
  MLX_HIP_RETURN_IF_ERROR(hipGetLastError());
  MLX_HIP_RETURN_IF_ERROR(hipMemcpy(out, dout, bytes, hipMemcpyDeviceToHost));
  MLX_HIP_RETURN_IF_ERROR(hipFree(da));
  MLX_HIP_RETURN_IF_ERROR(hipFree(db));
  MLX_HIP_RETURN_IF_ERROR(hipFree(dout));
  return 0;
}

} // namespace mlx::core::rocm
