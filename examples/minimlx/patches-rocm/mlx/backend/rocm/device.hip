// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
//
// Device discovery and hip_kernel: the hiprtc compiler and module cache
// behind custom kernels.
#include "mlx/backend/rocm/device.h"
#include "mlx/backend/rocm/hip_kernel.h"

#include <hip/hiprtc.h>

#include <cstdio>
#include <cstring>
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

// check throws HipError naming the call when err is not hipSuccess.
void check(hipError_t err, const char* call) {
  if (err != hipSuccess) {
    throw HipError(err, std::string("[rocm] ") + call + ": " + hipGetErrorName(err));
  }
}

} // namespace

DeviceArray DeviceArray::empty(Shape shape, Dtype dtype) {
  DeviceArray a(nullptr, std::move(shape), dtype);
  void* p = nullptr;
  check(hipMalloc(&p, a.nbytes()), "hipMalloc");
  a.data_ = std::shared_ptr<void>(p, [](void* q) { (void)hipFree(q); });
  return a;
}

namespace {

using TemplateArgs = std::vector<std::pair<std::string, TemplateArg>>;

// template_arg_text spells a template argument as C++: a type for a Dtype,
// a literal for an int or a bool.
std::string template_arg_text(const TemplateArg& arg) {
  if (const Dtype* d = std::get_if<Dtype>(&arg)) {
    return dtype_ctype(*d);
  }
  if (const bool* b = std::get_if<bool>(&arg)) {
    return *b ? "true" : "false";
  }
  return std::to_string(std::get<int>(arg));
}

// cache_key is the name and the template arguments, as in MLX, plus the
// device architecture: gcnArchName carries target features
// ("gfx90a:sramecc+:xnack-"), and code for one feature set may not load on
// another. The inputs' dtypes are not in it: see hip_kernel.h.
std::string cache_key(const std::string& name, const TemplateArgs& targs, const char* arch) {
  std::string key = name + "<";
  for (const auto& [param, arg] : targs) {
    key += param + "=" + template_arg_text(arg) + ",";
  }
  return key + ">@" + arch;
}

// kernel_source is the translation unit hiprtc compiles for one launch.
std::string kernel_source(
    const std::string& name,
    const std::vector<std::string>& input_names,
    const std::vector<DeviceArray>& inputs,
    const std::vector<std::string>& output_names,
    const std::vector<Dtype>& output_dtypes,
    const std::string& header,
    const std::string& source,
    const TemplateArgs& targs) {
  std::string full = "#include <hip/hip_runtime.h>\n";
  for (const auto& [param, arg] : targs) {
    if (std::holds_alternative<Dtype>(arg)) {
      full += "using " + param + " = " + template_arg_text(arg) + ";\n";
    } else {
      const char* type = std::holds_alternative<bool>(arg) ? "bool" : "int";
      full += std::string("constexpr ") + type + " " + param + " = " + template_arg_text(arg) + ";\n";
    }
  }
  full += header;
  full += "\nextern \"C\" __global__ void " + name + "(";
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    full += std::string(i > 0 ? ", " : "") + "const " + dtype_ctype(inputs[i].dtype()) + "* " + input_names[i];
  }
  for (std::size_t i = 0; i < output_names.size(); ++i) {
    full += std::string(i + inputs.size() > 0 ? ", " : "") + dtype_ctype(output_dtypes[i]) + "* " + output_names[i];
  }
  full += ") {\n" + source + "\n}\n";
  return full;
}

// compile builds source for arch with hiprtc and loads the kernel `name`.
hipFunction_t compile(const std::string& name, const std::string& source, const char* arch) {
  hiprtcProgram prog;
  if (hiprtcCreateProgram(&prog, source.c_str(), (name + ".hip").c_str(), 0, nullptr, nullptr) !=
      HIPRTC_SUCCESS) {
    throw HipError(hipErrorInvalidSource, "[rocm] hip_kernel " + name + ": hiprtcCreateProgram failed");
  }
  std::string arch_opt = std::string("--gpu-architecture=") + arch;
  const char* opts[] = {arch_opt.c_str(), "-O3"};
  if (hiprtcCompileProgram(prog, 2, opts) != HIPRTC_SUCCESS) {
    size_t log_size = 0;
    hiprtcGetProgramLogSize(prog, &log_size);
    std::string log(log_size, '\0');
    hiprtcGetProgramLog(prog, log.data());
    hiprtcDestroyProgram(&prog);
    throw HipError(hipErrorInvalidSource,
                   "[rocm] hip_kernel " + name + ": compile failed for " + arch + ":\n" + log);
  }
  size_t code_size = 0;
  hiprtcGetCodeSize(prog, &code_size);
  std::string code(code_size, '\0');
  hiprtcGetCode(prog, code.data());
  hiprtcDestroyProgram(&prog);
  hipModule_t module;
  check(hipModuleLoadData(&module, code.data()), "hipModuleLoadData");
  hipFunction_t fn = nullptr;
  check(hipModuleGetFunction(&fn, module, name.c_str()), "hipModuleGetFunction");
  return fn;
}

std::mutex cache_mutex;
std::unordered_map<std::string, hipFunction_t> cache;

// fill writes init_value to every element of out.
void fill(const DeviceArray& out, float init_value, hipStream_t stream) {
  int bits = 0;
  switch (out.dtype()) {
    case Dtype::float32:
      std::memcpy(&bits, &init_value, sizeof(bits));
      break;
    case Dtype::int32:
      bits = static_cast<int>(init_value);
      break;
    default:
      throw std::invalid_argument(
          std::string("[rocm] hip_kernel: init_value needs a float32 or int32 output, not ") +
          dtype_ctype(out.dtype()));
  }
  check(hipMemsetD32Async(reinterpret_cast<hipDeviceptr_t>(out.data()), bits, out.size(), stream),
        "hipMemsetD32Async");
}

unsigned blocks(int threads, int per_block) {
  return static_cast<unsigned>((threads + per_block - 1) / per_block);
}

} // namespace

CustomKernelFunction hip_kernel(
    const std::string& name,
    const std::vector<std::string>& input_names,
    const std::vector<std::string>& output_names,
    const std::string& source,
    const std::string& header,
    bool /* ensure_row_contiguous */,
    int shared_memory) {
  if (output_names.empty()) {
    throw std::invalid_argument("[rocm] hip_kernel " + name + ": give at least one output name");
  }
  return [=](const std::vector<DeviceArray>& inputs,
             const std::vector<Shape>& output_shapes,
             const std::vector<Dtype>& output_dtypes,
             std::tuple<int, int, int> grid,
             std::tuple<int, int, int> threadgroup,
             TemplateArgs template_args,
             std::optional<float> init_value,
             bool verbose,
             hipStream_t stream) -> std::vector<DeviceArray> {
    if (inputs.size() != input_names.size()) {
      throw std::invalid_argument("[rocm] hip_kernel " + name + ": " + std::to_string(inputs.size()) +
                                  " inputs for " + std::to_string(input_names.size()) + " input names");
    }
    if (output_shapes.size() != output_names.size() || output_dtypes.size() != output_names.size()) {
      throw std::invalid_argument("[rocm] hip_kernel " + name +
                                  ": give one output shape and one output dtype per output name");
    }
    auto [tx, ty, tz] = threadgroup;
    if (tx <= 0 || ty <= 0 || tz <= 0) {
      throw std::invalid_argument("[rocm] hip_kernel " + name + ": threadgroup dimensions must be positive");
    }
    int device = 0;
    check(hipGetDevice(&device), "hipGetDevice");
    hipDeviceProp_t props;
    check(hipGetDeviceProperties(&props, device), "hipGetDeviceProperties");
    std::string full = kernel_source(
        name, input_names, inputs, output_names, output_dtypes, header, source, template_args);
    if (verbose) {
      std::fprintf(stderr, "Generated source code for `%s`:\n```\n%s\n```\n", name.c_str(), full.c_str());
    }
    std::string key = cache_key(name, template_args, props.gcnArchName);
    hipFunction_t fn = nullptr;
    {
      std::lock_guard<std::mutex> lock(cache_mutex);
      auto it = cache.find(key);
      if (it == cache.end()) {
        it = cache.emplace(key, compile(name, full, props.gcnArchName)).first;
      }
      fn = it->second;
    }
    std::vector<DeviceArray> outputs;
    for (std::size_t i = 0; i < output_names.size(); ++i) {
      outputs.push_back(DeviceArray::empty(output_shapes[i], output_dtypes[i]));
      if (init_value) {
        fill(outputs.back(), *init_value, stream);
      }
    }
    // hipModuleLaunchKernel takes a pointer to each argument: here each
    // argument is a buffer's device pointer.
    std::vector<void*> pointers;
    for (const auto& a : inputs) {
      pointers.push_back(a.data());
    }
    for (const auto& a : outputs) {
      pointers.push_back(a.data());
    }
    std::vector<void*> params;
    for (auto& p : pointers) {
      params.push_back(&p);
    }
    auto [gx, gy, gz] = grid;
    check(hipModuleLaunchKernel(
              fn, blocks(gx, tx), blocks(gy, ty), blocks(gz, tz), tx, ty, tz,
              static_cast<unsigned>(shared_memory), stream, params.data(), nullptr),
          "hipModuleLaunchKernel");
    return outputs;
  };
}

} // namespace mlx::core::rocm
