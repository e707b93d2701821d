// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
#pragma once

#include <hip/hip_runtime.h>

#include <cstddef>

namespace mlx::core::rocm {

// device_count returns the number of HIP devices, or the negated hipError_t
// when the runtime cannot enumerate them (no driver, no GPU).
int device_count();

// add computes out = a + b on device 0; it returns 0 or a hipError_t.
int add(const float* a, const float* b, float* out, std::size_t n);

// row_sum sums each row of a rows x cols matrix on device 0 through the
// JIT-compiled lane reduction; it returns 0 or a hipError_t.
int row_sum(const float* in, float* out, int rows, int cols);

} // namespace mlx::core::rocm

// MLX_HIP_RETURN_IF_ERROR returns the hipError_t of a failing call as an int.
#define MLX_HIP_RETURN_IF_ERROR(expr)      \
  do {                                     \
    hipError_t mlx_hip_err__ = (expr);     \
    if (mlx_hip_err__ != hipSuccess) {     \
      return static_cast<int>(mlx_hip_err__); \
    }                                      \
  } while (0)
