// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
//
// The GPU entry points of a build without a GPU backend. A backend overlay
// (patches-rocm, patches-cuda) replaces this file with one that calls into
// its kernel library.
#include "mlx/ops.h"

namespace mlx::core::gpu {

bool is_available() {
  return false;
}

int device_count() {
  return 0;
}

int add(const float*, const float*, float*, std::size_t) {
  return -1;
}

} // namespace mlx::core::gpu
