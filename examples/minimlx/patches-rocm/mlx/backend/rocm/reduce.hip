// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
//
// Row reduction through a custom kernel compiled at run time (hip_kernel).
// The kernel reduces across lanes with __shfl_down and is written for a
// 32-lane wavefront, so its header refuses to compile for anything else:
// on a wave64 target (gfx90a, gfx942) it would return plausible wrong sums.
#include "mlx/backend/rocm/device.h"
#include "mlx/backend/rocm/hip_kernel.h"
#include "mlx/backend/rocm/kernel_port.h"

#include <cstdio>

namespace mlx::core::rocm {

namespace {

// ROW_SUM_HEADER stops the compile on a wavefront that is not 32 lanes wide.
// Both spellings of the macro are tested: clang-15 (ROCm 5.2) defines only
// __AMDGCN_WAVEFRONT_SIZE, newer compilers define both.
constexpr const char* ROW_SUM_HEADER = R"(
#if defined(__AMDGCN_WAVEFRONT_SIZE__) && __AMDGCN_WAVEFRONT_SIZE__ != 32
#error "mlx_row_sum assumes a 32-lane wavefront"
#endif
#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE != 32
#error "mlx_row_sum assumes a 32-lane wavefront"
#endif
)";

// ROW_SUM_SOURCE is the body of mlx_row_sum(const T* in, T* out): one
// 32-lane block per row of COLS elements.
constexpr const char* ROW_SUM_SOURCE = R"(
  const T* row = in + static_cast<size_t>(blockIdx.x) * COLS;
  T acc = 0;
  for (int c = threadIdx.x; c < COLS; c += 32) {
    acc += row[c];
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    acc += __shfl_down(acc, offset, 32);
  }
  if (threadIdx.x == 0) {
    out[blockIdx.x] = acc;
  }
)";

// row_sum_kernel is made once; hip_kernel compiles a module on the first
// launch for each dtype and row length (template_args) and device.
const CustomKernelFunction& row_sum_kernel() {
  static const auto kernel = [] {
    return hip_kernel(
        "mlx_row_sum",
        {"in"},
        {"out"},
        ROW_SUM_SOURCE,
        ROW_SUM_HEADER,
        /* ensure_row_contiguous= */ true,
        /* shared_memory= */ 0);
  }();
  return kernel;
}

using RowSumLaunch = std::vector<DeviceArray> (*)(const DeviceArray&, hipStream_t);

// launch_row_sum sums each row of the rows x cols array in, one 32-lane
// block per row. The input's dtype is a template argument: the module
// cache keys on it, so a float32 and an int32 launch get their own module.
std::vector<DeviceArray> launch_row_sum(const DeviceArray& in, hipStream_t stream) {
  int rows = in.shape(0);
  int cols = in.shape(1);
  return row_sum_kernel()(
      {in},
      {Shape{rows}},
      {in.dtype()},
      {rows * 32, 1, 1},
      {32, 1, 1},
      {{"T", in.dtype()}, {"COLS", cols}},
      std::nullopt,
      false,
      stream);
}

constexpr KernelPort<RowSumLaunch> kRowSumPorts[] = {
    {Dtype::float32, &launch_row_sum},
    {Dtype::int32, &launch_row_sum},
};

} // namespace

bool row_sum_supported() {
  return has_kernel_port(kRowSumPorts);
}

int row_sum(const float* in, float* out, int rows, int cols) {
  if (!row_sum_supported()) {
    return static_cast<int>(hipErrorNotSupported);
  }
  try {
    RowSumLaunch launch = select_kernel_port(kRowSumPorts, Dtype::float32);
    DeviceArray din = DeviceArray::empty({rows, cols}, Dtype::float32);
    MLX_HIP_RETURN_IF_ERROR(hipMemcpy(din.data(), in, din.nbytes(), hipMemcpyHostToDevice));
    std::vector<DeviceArray> outs = launch(din, nullptr);
    // hipMemcpy on the null stream waits for the launch.
    MLX_HIP_RETURN_IF_ERROR(hipMemcpy(out, outs[0].data(), outs[0].nbytes(), hipMemcpyDeviceToHost));
  } catch (const HipError& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return static_cast<int>(e.code());
  }
  return 0;
}

} // namespace mlx::core::rocm
