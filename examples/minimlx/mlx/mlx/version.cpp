// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
#include "mlx/build_config.h"
#include "mlx/device.h"

#include <string_view>

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

Device default_device() {
  return Device(std::string_view(MLX_BACKEND) == "cpu" ? Device::DeviceType::cpu : Device::DeviceType::gpu);
}

} // namespace mlx::core
