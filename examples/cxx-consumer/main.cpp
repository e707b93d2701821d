// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
//
// cxx-consumer: a C++ program linked against the minimlx static libraries
// with the flags of a link plan (ldflags.txt). It proves the libraries link
// and load with LD_LIBRARY_PATH unset, and on a GPU that the kernels run.
//
// Build with one of -DMLX_CONSUMER_ROCM (plus -D__HIP_PLATFORM_AMD__) or
// -DMLX_CONSUMER_CUDA, or neither for the CPU build. Exit status 0 = pass.

#include "mlx/c_api.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#if defined(MLX_CONSUMER_ROCM)
#include <hip/hip_runtime_api.h>
#endif

namespace {

int check_cpu() {
  const float a[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  const float b[4] = {10.0f, 20.0f, 30.0f, 40.0f};
  float out[4] = {0};
  if (mlx_add(a, b, out, 4) != 0) {
    std::fprintf(stderr, "FAIL: mlx_add returned an error\n");
    return 1;
  }
  for (int i = 0; i < 4; ++i) {
    if (out[i] != a[i] + b[i]) {
      std::fprintf(stderr, "FAIL: mlx_add[%d] = %g, want %g\n", i, out[i], a[i] + b[i]);
      return 1;
    }
  }
  float s = mlx_sum(out, 4);
  if (s != 110.0f) {
    std::fprintf(stderr, "FAIL: mlx_sum = %g, want 110\n", s);
    return 1;
  }
  std::printf("cpu: mlx_add ok, mlx_sum = %g\n", s);
  return 0;
}

#if defined(MLX_CONSUMER_ROCM)
// check_rocm calls the HIP runtime directly and through libmlx. On a machine
// without a GPU, hipErrorNoDevice and hipErrorInvalidDevice mean the runtime
// loaded and answered: that is a successful load.
int check_rocm() {
  hipError_t err = hipInit(0);
  int count = 0;
  if (err == hipSuccess) {
    err = hipGetDeviceCount(&count);
  }
  if (err == hipErrorNoDevice || err == hipErrorInvalidDevice) {
    std::printf("rocm: runtime loaded, no GPU (%s)\n", hipGetErrorName(err));
    int via_mlx = mlx_gpu_device_count();
    std::printf("rocm: mlx_gpu_device_count = %d\n", via_mlx);
    return via_mlx <= 0 ? 0 : 1;
  }
  if (err != hipSuccess) {
    std::fprintf(stderr, "FAIL: hip runtime: %s\n", hipGetErrorName(err));
    return 1;
  }
  std::printf("rocm: %d %s\n", count, count == 1 ? "device" : "devices");
  const float a[3] = {1.0f, 2.0f, 3.0f};
  const float b[3] = {0.5f, 0.5f, 0.5f};
  float out[3] = {0};
  int rc = mlx_gpu_add(a, b, out, 3);
  if (rc != 0 || out[2] != 3.5f) {
    std::fprintf(stderr, "FAIL: mlx_gpu_add rc=%d out[2]=%g\n", rc, out[2]);
    return 1;
  }
  std::printf("rocm: mlx_gpu_add ok\n");
  return 0;
}
#endif

#if defined(MLX_CONSUMER_CUDA)
// check_cuda launches the CUDA overlay's kernel through mlx_gpu_add and
// compares every element with the CPU result.
int check_cuda() {
  int count = mlx_gpu_device_count();
  if (count <= 0) {
    std::fprintf(stderr, "FAIL: mlx_gpu_device_count = %d (no CUDA device)\n", count);
    return 1;
  }
  enum { n = 1 << 20 };
  static float a[n], b[n], gpu[n], cpu[n];
  for (int i = 0; i < n; ++i) {
    a[i] = static_cast<float>(i % 1000) * 0.25f;
    b[i] = static_cast<float>(i % 7) - 3.0f;
  }
  int rc = mlx_gpu_add(a, b, gpu, n);
  if (rc != 0) {
    std::fprintf(stderr, "FAIL: mlx_gpu_add returned CUDA error %d\n", rc);
    return 1;
  }
  mlx_add(a, b, cpu, n);
  for (int i = 0; i < n; ++i) {
    if (gpu[i] != cpu[i]) {
      std::fprintf(stderr, "FAIL: gpu[%d] = %g, cpu = %g\n", i, gpu[i], cpu[i]);
      return 1;
    }
  }
  std::printf("cuda: %d %s, mlx_gpu_add of %d elements matches the CPU\n", count, count == 1 ? "device" : "devices", n);
  return 0;
}
#endif

} // namespace

int main() {
  std::printf("mlx %s backend=%s archs=%s\n", mlx_version(), mlx_backend_name(), mlx_gpu_archs());
  if (check_cpu() != 0) {
    return 1;
  }
#if defined(MLX_CONSUMER_ROCM)
  if (std::strcmp(mlx_backend_name(), "rocm") != 0) {
    std::fprintf(stderr, "FAIL: built for rocm, library says %s\n", mlx_backend_name());
    return 1;
  }
  return check_rocm();
#elif defined(MLX_CONSUMER_CUDA)
  if (std::strcmp(mlx_backend_name(), "cuda") != 0) {
    std::fprintf(stderr, "FAIL: built for cuda, library says %s\n", mlx_backend_name());
    return 1;
  }
  return check_cuda();
#else
  return 0;
#endif
}
