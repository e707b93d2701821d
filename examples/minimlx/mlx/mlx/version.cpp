// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
#include "mlx/build_config.h"

namespace mlx::core {

const char* version() {
  return MLX_VERSION;
}

const char* backend() {
  return MLX_BACKEND;
}

const char* gpu_archs() {
  return MLX_GPU_ARCHS;
}

} // namespace mlx::core
