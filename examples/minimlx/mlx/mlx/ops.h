// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
#pragma once

#include <cstddef>

namespace mlx::core {

void add(const float* a, const float* b, float* out, std::size_t n);
float sum(const float* a, std::size_t n);

namespace gpu {

// is_available, device_count and add are the GPU entry points. The pristine
// source answers "no GPU"; a backend overlay replaces backend/gpu/available.cpp.
bool is_available();
int device_count();
int add(const float* a, const float* b, float* out, std::size_t n);

} // namespace gpu
} // namespace mlx::core
