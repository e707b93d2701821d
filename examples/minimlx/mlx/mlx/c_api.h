// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
//
// The C API of minimlx: what a Rust or C++ consumer calls. Plain C types only,
// so `extern "C"` declarations in any language can bind it.
#pragma once

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* mlx_version returns the library version, e.g. "0.1.0". */
const char* mlx_version(void);

/* mlx_backend_name returns the GPU backend compiled in: "cpu", "rocm", "cuda" or "metal". */
const char* mlx_backend_name(void);

/* mlx_gpu_archs returns the GPU targets compiled in, comma-separated ("" for cpu). */
const char* mlx_gpu_archs(void);

/* mlx_add writes a[i] + b[i] to out[i] on the CPU. Returns 0, or -1 on a null pointer. */
int mlx_add(const float* a, const float* b, float* out, size_t n);

/* mlx_sum returns the sum of a[0..n) on the CPU. */
float mlx_sum(const float* a, size_t n);

/* mlx_gpu_device_count returns the number of GPUs the backend sees, or a
 * negative backend error code (e.g. -100 for hipErrorNoDevice); 0 on cpu. */
int mlx_gpu_device_count(void);

/* mlx_gpu_add computes a[i] + b[i] on the GPU. Returns 0 on success, a
 * positive backend error code on failure, -1 when no GPU backend is built. */
int mlx_gpu_add(const float* a, const float* b, float* out, size_t n);

/* mlx_half_to_float converts IEEE half-precision bits to a float. It exists
 * only in a build with MLX_BUILD_HALF=ON (the halfconv dependency). */
float mlx_half_to_float(unsigned short bits);

#ifdef __cplusplus
}
#endif
