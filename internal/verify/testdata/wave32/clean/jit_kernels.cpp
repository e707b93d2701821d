// JIT kernels as the reference engine writes them: raw strings handed to
// hip_kernel, compiled by hipRTC for the device at hand.
#include <mlx/fast.h>

namespace {

// A port validated only on 32 lanes: guarded inside the string, on both
// spellings of the wavefront macro.
constexpr const char* FUSED_NORM_HIP_SOURCE = R"(
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
    if (lane == 0u) { out[threadIdx.x / 32u] = acc; }
)";

// Written for any wave size: no guard, explicit width.
constexpr const char* ROW_MAX_HIP_SOURCE = R"(
    float v = (float)x[threadIdx.x];
    for (int o = 16; o > 0; o >>= 1) {
        v = fmaxf(v, __shfl_xor(v, o, 32));  // __shfl_xor(v, o) would not do
    }
    out[threadIdx.x] = v;
)";

} // namespace

auto norm = mlx::core::fast::hip_kernel("fused_norm", {"x"}, {"out"}, FUSED_NORM_HIP_SOURCE);
auto row_max = mlx::core::fast::hip_kernel("row_max", {"x"}, {"out"}, ROW_MAX_HIP_SOURCE);
