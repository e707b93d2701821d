// No cross-lane work, so no guard and no width. A comment about __shfl_xor(
// and warpSize / 2 does not count, nor does text in a string that is no kernel.
#include <hip/hip_runtime.h>

constexpr const char* help = "use __shfl_xor when a value must cross lanes";

__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && threadIdx.x < warpSize) {
    c[i] = a[i] + b[i];
  }
}
