// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
//
// Device discovery and the hiprtc cache behind hip_kernel.
#include "mlx/backend/rocm/device.h"
#include "mlx/backend/rocm/hip_kernel.h"

#include <hip/hiprtc.h>

#include <cstdio>
#include <mutex>
#include <string>
#include <unordered_map>

namespace mlx::core::rocm {

int device_count() {
  // hipInit fails with hipErrorNoDevice / hipErrorInvalidDevice on a machine
  // without a GPU: the library loaded fine, there is just nothing to run on.
  hipError_t err = hipInit(0);
  if (err != hipSuccess) {
    return -static_cast<int>(err);
  }
  int n = 0;
  err = hipGetDeviceCount(&n);
  if (err != hipSuccess) {
    return -static_cast<int>(err);
  }
  return n;
}

namespace {

std::mutex cache_mutex;
std::unordered_map<std::string, hipFunction_t> cache;

std::string cache_key(const std::string& name, const TemplateArgs& targs, const char* arch) {
  std::string key = name + "<";
  for (const auto& [param, dtype] : targs) {
    key += param + "=" + dtype_ctype(dtype) + ",";
  }
  return key + ">@" + arch;
}

int compile(
    const std::string& name,
    const char* source,
    const TemplateArgs& targs,
    const char* arch,
    hipFunction_t* fn) {
  std::string full = "#include <hip/hip_runtime.h>\n";
  for (const auto& [param, dtype] : targs) {
    full += "using " + param + " = " + dtype_ctype(dtype) + ";\n";
  }
  full += source;
  hiprtcProgram prog;
  if (hiprtcCreateProgram(&prog, full.c_str(), (name + ".hip").c_str(), 0, nullptr, nullptr) !=
      HIPRTC_SUCCESS) {
    return hipErrorInvalidSource;
  }
  std::string arch_opt = std::string("--gpu-architecture=") + arch;
  const char* opts[] = {arch_opt.c_str(), "-O3"};
  if (hiprtcCompileProgram(prog, 2, opts) != HIPRTC_SUCCESS) {
    size_t log_size = 0;
    hiprtcGetProgramLogSize(prog, &log_size);
    std::string log(log_size, '\0');
    hiprtcGetProgramLog(prog, log.data());
    std::fprintf(stderr, "[rocm] hip_kernel %s: compile failed:\n%s\n", name.c_str(), log.c_str());
    hiprtcDestroyProgram(&prog);
    return hipErrorInvalidSource;
  }
  size_t code_size = 0;
  hiprtcGetCodeSize(prog, &code_size);
  std::string code(code_size, '\0');
  hiprtcGetCode(prog, code.data());
  hiprtcDestroyProgram(&prog);
  hipModule_t module;
  MLX_HIP_RETURN_IF_ERROR(hipModuleLoadData(&module, code.data()));
  MLX_HIP_RETURN_IF_ERROR(hipModuleGetFunction(fn, module, name.c_str()));
  return 0;
}

} // namespace

int hip_kernel(
    const std::string& name,
    const char* source,
    const TemplateArgs& template_args,
    dim3 grid,
    dim3 block,
    void** args) {
  hipDeviceProp_t props;
  MLX_HIP_RETURN_IF_ERROR(hipGetDeviceProperties(&props, 0));
  // gcnArchName carries target features ("gfx90a:sramecc+:xnack-"); the
  // cache key keeps them, since code for one feature set may not load on another.
  std::string key = cache_key(name, template_args, props.gcnArchName);
  hipFunction_t fn = nullptr;
  {
    std::lock_guard<std::mutex> lock(cache_mutex);
    auto it = cache.find(key);
    if (it != cache.end()) {
      fn = it->second;
    } else {
      int err = compile(name, source, template_args, props.gcnArchName, &fn);
      if (err != 0) {
        return err;
      }
      cache.emplace(key, fn);
    }
  }
  MLX_HIP_RETURN_IF_ERROR(hipModuleLaunchKernel(
      fn, grid.x, grid.y, grid.z, block.x, block.y, block.z, 0, nullptr, args, nullptr));
  return static_cast<int>(hipDeviceSynchronize());
}

} // namespace mlx::core::rocm
