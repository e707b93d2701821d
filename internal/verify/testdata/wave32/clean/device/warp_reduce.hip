// Copyright © 2025 The mlxbuild authors. Fixture for the wave32 check.
#pragma once

#include <hip/hip_runtime.h>

// Older clang (ROCm 5.x) defines only the plain spelling; newer clang both.
#if defined(__AMDGCN_WAVEFRONT_SIZE__) && __AMDGCN_WAVEFRONT_SIZE__ != 32
#error "warp_reduce.hip assumes wave32; build for gfx10/gfx11 or port it"
#endif
#ifdef __AMDGCN_WAVEFRONT_SIZE
#if __AMDGCN_WAVEFRONT_SIZE != 32
#error "warp_reduce.hip assumes wave32"
#endif
#endif

template <typename T>
__device__ T warp_sum(T v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) {
    v += __shfl_xor(v, offset, 32);
  }
  return v;
}
