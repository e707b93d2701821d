// Copyright 2026 The mlxbuild authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.

#pragma once

// HIP body of the fused norm, validated on 32 lanes only: guarded inside
// the string on both spellings of the wavefront macro.
inline constexpr const char* FUSED_NORM_HIP_SOURCE = R"(
    #if defined(__AMDGCN_WAVEFRONT_SIZE__) && __AMDGCN_WAVEFRONT_SIZE__ != 32
    #error "fused_norm (HIP) has only been run on a 32-lane wavefront"
    #endif
    #if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE != 32
    #error "fused_norm (HIP) has only been run on a 32-lane wavefront"
    #endif
    uint32_t lane = threadIdx.x % 32u;
    float acc = (float)x[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) {
        acc += __shfl_xor(acc, o, 32);
    }
    if (lane == 0u) { out[threadIdx.x / 32u] = (T)acc; }
)";
