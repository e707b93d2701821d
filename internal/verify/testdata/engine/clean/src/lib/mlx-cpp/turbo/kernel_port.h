// Copyright 2026 The mlxbuild authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.

// Stand-in for an engine's port table (the reference engine's shape:
// lablup/mlxcel src/lib/mlx-cpp/turbo/kernel_port.h).
#pragma once
#include <mlx/fast.h>

namespace engine {
using KernelPortGetter = mlx::core::fast::CustomKernelFunction& (*)();
struct KernelPorts {
  KernelPortGetter metal = nullptr;
  KernelPortGetter cuda = nullptr;
  KernelPortGetter rocm = nullptr;
};
bool has_kernel_port(const KernelPorts& ports);
mlx::core::fast::CustomKernelFunction& select_kernel_port(const char* entry, const char* fallback, const KernelPorts& ports);
} // namespace engine
