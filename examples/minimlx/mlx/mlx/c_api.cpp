// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
#include "mlx/c_api.h"
#include "mlx/ops.h"

#ifdef MLX_HAS_HALFCONV
#include <halfconv.h>
#endif

namespace mlx::core {
const char* version();
const char* backend();
const char* gpu_archs();
} // namespace mlx::core

using namespace mlx::core;

extern "C" {

const char* mlx_version(void) {
  return version();
}

const char* mlx_backend_name(void) {
  return backend();
}

const char* mlx_gpu_archs(void) {
  return gpu_archs();
}

int mlx_add(const float* a, const float* b, float* out, size_t n) {
  if (n > 0 && (a == nullptr || b == nullptr || out == nullptr)) {
    return -1;
  }
  add(a, b, out, n);
  return 0;
}

float mlx_sum(const float* a, size_t n) {
  return a == nullptr ? 0.0f : sum(a, n);
}

int mlx_gpu_device_count(void) {
  return gpu::device_count();
}

int mlx_gpu_add(const float* a, const float* b, float* out, size_t n) {
  return gpu::add(a, b, out, n);
}

#ifdef MLX_HAS_HALFCONV
float mlx_half_to_float(unsigned short bits) {
  return halfconv_to_float(bits);
}
#endif

} // extern "C"
