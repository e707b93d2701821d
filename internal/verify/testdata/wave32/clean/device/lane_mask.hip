// warpSize arithmetic, guarded on one line per macro, with an #elif chain.
#include <hip/hip_runtime.h>

#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE == 64
#error "lane_mask.hip assumes wave32"
#elif defined(__AMDGCN_WAVEFRONT_SIZE__) && \
    __AMDGCN_WAVEFRONT_SIZE__ != 32
#error "lane_mask.hip assumes wave32"
#endif

__device__ unsigned lane_id() {
  return threadIdx.x & (warpSize - 1);
}
