// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
//
// ROCm overlay of mlx/backend/gpu/available.cpp: the GPU entry points call
// into libmlx_rocm_kernels. The pristine file answers "no GPU".
#include "mlx/ops.h"

namespace mlx::core::rocm {
int device_count();
int add(const float* a, const float* b, float* out, std::size_t n);
} // namespace mlx::core::rocm

namespace mlx::core::gpu {

bool is_available() {
  return rocm::device_count() > 0;
}

int device_count() {
  return rocm::device_count();
}

int add(const float* a, const float* b, float* out, std::size_t n) {
  return rocm::add(a, b, out, n);
}

} // namespace mlx::core::gpu
