// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
//
// The device an operation runs on, spelled as MLX spells it (mlx/device.h).
// Like MLX's, it compares with a defaulted operator==, which needs C++20: a
// consumer's code that includes it compiles only with the standard the
// library's own CMake sets (CMAKE_CXX_STANDARD, the top CMakeLists.txt).
#pragma once

namespace mlx::core {

struct Device {
  enum class DeviceType { cpu, gpu };

  DeviceType type;
  int index;

  constexpr Device(DeviceType type, int index = 0) : type(type), index(index) {}

  bool operator==(const Device&) const = default;
};

// default_device is the device the build's backend computes on: the GPU
// for a GPU backend, else the CPU.
Device default_device();

} // namespace mlx::core
