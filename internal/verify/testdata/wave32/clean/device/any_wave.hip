// Written for any wave size, as the ROCm fork's reductions are: no guard,
// and every shuffle passes its width.
#include <hip/hip_runtime.h>
#include "device/config.h"

__device__ float warp_sum(float val) {
  for (int offset = WARP_SIZE / 2; offset > 0; offset /= 2) {
    val += __shfl_xor(val, offset, WARP_SIZE);
  }
  return val;
}

// A 32-lane tile: on a 64-lane wavefront each half reduces on its own.
__device__ float tile_sum_32(float val) {
  val += __shfl_xor(val, 16, 32);
  val += __shfl_xor(val, 8, 32);
  return val + __shfl_down_sync(0xffffffffffffffffull, val, 4, 32);
}

__device__ int lane_in_wave() { return threadIdx.x % warpSize; }
