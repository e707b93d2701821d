// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
#include "mlx/ops.h"

namespace mlx::core {

// sum accumulates in double, so the example's small inputs add up
// without rounding surprises.
float sum(const float* a, std::size_t n) {
  double acc = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    acc += a[i];
  }
  return static_cast<float>(acc);
}

} // namespace mlx::core
