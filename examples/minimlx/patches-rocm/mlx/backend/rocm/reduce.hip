// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
//
// Row reduction through a custom kernel compiled at run time (hip_kernel).
// The kernel reduces across lanes with __shfl_down and is written for a
// 32-lane wavefront, so its source refuses to compile for anything else:
// on a wave64 target (gfx90a, gfx942) it would return plausible wrong sums.
#include "mlx/backend/rocm/device.h"
#include "mlx/backend/rocm/hip_kernel.h"
#include "mlx/backend/rocm/kernel_port.h"

namespace mlx::core::rocm {

inline constexpr const char* ROW_SUM_HIP_SOURCE = R"(
#if defined(__AMDGCN_WAVEFRONT_SIZE__) && __AMDGCN_WAVEFRONT_SIZE__ != 32
#error "mlx_row_sum assumes a 32-lane wavefront"
#endif
#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE != 32
#error "mlx_row_sum assumes a 32-lane wavefront"
#endif
extern "C" __global__ void mlx_row_sum(const T* in, T* out, int cols) {
  const T* row = in + static_cast<size_t>(blockIdx.x) * cols;
  T acc = 0;
  for (int c = threadIdx.x; c < cols; c += 32) {
    acc += row[c];
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    acc += __shfl_down(acc, offset, 32);
  }
  if (threadIdx.x == 0) {
    out[blockIdx.x] = acc;
  }
}
)";

using RowSumLaunch = int (*)(const void*, void*, int, int);

template <Dtype D>
int launch_row_sum(const void* in, void* out, int rows, int cols) {
  void* args[] = {&in, &out, &cols};
  return hip_kernel(
      "mlx_row_sum",
      ROW_SUM_HIP_SOURCE,
      /* template_args= */ {{"T", D}},
      dim3(rows),
      dim3(32),
      args);
}

constexpr KernelPort<RowSumLaunch> kRowSumPorts[] = {
    {Dtype::float32, &launch_row_sum<Dtype::float32>},
    {Dtype::int32, &launch_row_sum<Dtype::int32>},
};

bool row_sum_supported() {
  return has_kernel_port(kRowSumPorts);
}

int row_sum(const float* in, float* out, int rows, int cols) {
  if (!row_sum_supported()) {
    return static_cast<int>(hipErrorNotSupported);
  }
  RowSumLaunch launch = select_kernel_port(kRowSumPorts, Dtype::float32);
  size_t in_bytes = static_cast<size_t>(rows) * cols * sizeof(float);
  size_t out_bytes = static_cast<size_t>(rows) * sizeof(float);
  float *din = nullptr, *dout = nullptr;
  MLX_HIP_RETURN_IF_ERROR(hipMalloc(&din, in_bytes));
  MLX_HIP_RETURN_IF_ERROR(hipMalloc(&dout, out_bytes));
  MLX_HIP_RETURN_IF_ERROR(hipMemcpy(din, in, in_bytes, hipMemcpyHostToDevice));
  int err = launch(din, dout, rows, cols);
  if (err != 0) {
    return err;
  }
  MLX_HIP_RETURN_IF_ERROR(hipMemcpy(out, dout, out_bytes, hipMemcpyDeviceToHost));
  MLX_HIP_RETURN_IF_ERROR(hipFree(din));
  MLX_HIP_RETURN_IF_ERROR(hipFree(dout));
  return 0;
}

} // namespace mlx::core::rocm
