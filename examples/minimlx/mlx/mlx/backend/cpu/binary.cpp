// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
#include "mlx/ops.h"

namespace mlx::core {

void add(const float* a, const float* b, float* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = a[i] + b[i];
  }
}

} // namespace mlx::core
