// A C++ bridge over minimlx's C API, compiled by the cc crate with the link
// plan's include directories, defines and C++ standard.
#include <cstddef>

#include "mlx/c_api.h"

#if defined(MLXBUILD_BACKEND_ROCM)
#define BRIDGE_BACKEND "rocm"
#elif defined(MLXBUILD_BACKEND_CUDA)
#define BRIDGE_BACKEND "cuda"
#elif defined(MLXBUILD_BACKEND_METAL)
#define BRIDGE_BACKEND "metal"
#elif defined(MLXBUILD_BACKEND_CPU)
#define BRIDGE_BACKEND "cpu"
#else
#error "no MLXBUILD_BACKEND_* define: the link plan's compile.defines did not reach the compiler"
#endif

#if __cplusplus < 201703L
#error "the link plan's compile.std did not reach the compiler"
#endif

extern "C" {

// The backend the bridge was compiled for, from the plan's defines.
const char* bridge_backend(void) { return BRIDGE_BACKEND; }

// Whether the plan declared MLXBUILD_GPU_BACKEND for this backend.
int bridge_gpu(void) {
#ifdef MLXBUILD_GPU_BACKEND
  return 1;
#else
  return 0;
#endif
}

// sum(a + b) through libmlx: the bridge calls into the tree it was compiled against.
float bridge_add_sum(const float* a, const float* b, float* scratch, std::size_t n) {
  if (mlx_add(a, b, scratch, n) != 0) {
    return -1.0f;
  }
  return mlx_sum(scratch, n);
}

}  // extern "C"
