// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
//
// hip_kernel: custom kernels compiled at run time with hiprtc, shaped like
// MLX's fast::metal_kernel and fast::cuda_kernel. The factory takes the
// kernel's name, input and output names and source, and returns a function
// that launches it:
//
//   auto kernel = hip_kernel("my_op", {"x"}, {"y"}, source);
//   auto outs = kernel({x}, {x.shape()}, {x.dtype()}, grid, threadgroup,
//                      {{"T", x.dtype()}}, std::nullopt, false, stream);
//
// As in MLX, compiled modules are cached by kernel name and template
// arguments only, while the generated signature spells the inputs' dtypes:
// every launch must put the input dtype in its template_args, or a second
// dtype reuses the module compiled for the first (verify's kernel-keys
// check holds every call site to this).
#pragma once

#include "mlx/dtype.h"

#include <hip/hip_runtime.h>

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

namespace mlx::core::rocm {

using Shape = std::vector<int>;

// dtype_size is the size in bytes of one element of dtype d.
inline std::size_t dtype_size(Dtype d) {
  switch (d) {
    case Dtype::float16:
    case Dtype::bfloat16:
      return 2;
    case Dtype::float32:
    case Dtype::int32:
      return 4;
  }
  return 0;
}

// HipError is what a failed HIP or hiprtc call throws from DeviceArray::empty
// and from a custom kernel's launch; code() is the hipError_t (a hiprtc
// compile failure is hipErrorInvalidSource, with the log in what()).
class HipError : public std::runtime_error {
 public:
  HipError(hipError_t code, const std::string& what)
      : std::runtime_error(what), code_(code) {}
  hipError_t code() const {
    return code_;
  }

 private:
  hipError_t code_;
};

// DeviceArray is a row-contiguous buffer in device memory with its shape and
// dtype: the part of mlx::core::array a custom kernel reads. Copies share
// the buffer; the last copy frees it.
class DeviceArray {
 public:
  DeviceArray(std::shared_ptr<void> data, Shape shape, Dtype dtype)
      : data_(std::move(data)), shape_(std::move(shape)), dtype_(dtype) {}

  // empty allocates an uninitialised array with hipMalloc; it throws
  // HipError when the allocation fails.
  static DeviceArray empty(Shape shape, Dtype dtype);

  void* data() const {
    return data_.get();
  }
  const Shape& shape() const {
    return shape_;
  }
  // shape(dim) is one dimension; a negative dim counts from the end.
  int shape(int dim) const {
    return shape_.at(dim < 0 ? dim + static_cast<int>(shape_.size()) : dim);
  }
  Dtype dtype() const {
    return dtype_;
  }
  // size is the number of elements.
  std::size_t size() const {
    std::size_t n = 1;
    for (int d : shape_) {
      n *= static_cast<std::size_t>(d);
    }
    return n;
  }
  std::size_t nbytes() const {
    return size() * dtype_size(dtype_);
  }

 private:
  std::shared_ptr<void> data_;
  Shape shape_;
  Dtype dtype_;
};

// TemplateArg is one template argument of a launch: a Dtype becomes a type
// alias in the kernel source (`using T = float;`), an int or a bool a
// constant (`constexpr int N = 4;`).
using TemplateArg = std::variant<int, bool, Dtype>;

// CustomKernelFunction launches a custom kernel; its parameters are those of
// MLX's (inputs, output_shapes, output_dtypes, grid, threadgroup,
// template_args, init_value, verbose, stream), with a HIP stream for MLX's
// StreamOrDevice. grid counts threads, as in MLX: the launch runs
// ceil(grid / threadgroup) blocks per dimension. It returns the outputs,
// allocated for output_shapes and output_dtypes and filled with init_value
// when one is given (float32 and int32 outputs); verbose prints the
// generated source to stderr. The launch is asynchronous on stream.
using CustomKernelFunction = std::function<std::vector<DeviceArray>(
    const std::vector<DeviceArray>&,
    const std::vector<Shape>&,
    const std::vector<Dtype>&,
    std::tuple<int, int, int>,
    std::tuple<int, int, int>,
    std::vector<std::pair<std::string, TemplateArg>>,
    std::optional<float>,
    bool,
    hipStream_t)>;

// hip_kernel makes the custom kernel `name`. The generated kernel is
//
//   <template arguments as aliases and constants>
//   <header>
//   extern "C" __global__ void name(const <dtype>* <input>..., <dtype>* <output>...) {
//   <source>
//   }
//
// compiled with hiprtc on first launch for each name + template_args +
// device architecture. ensure_row_contiguous is kept for MLX's signature
// (every DeviceArray is row contiguous); shared_memory is the dynamic shared
// memory of each block in bytes. It throws std::invalid_argument when
// output_names is empty.
CustomKernelFunction hip_kernel(
    const std::string& name,
    const std::vector<std::string>& input_names,
    const std::vector<std::string>& output_names,
    const std::string& source,
    const std::string& header = "",
    bool ensure_row_contiguous = true,
    int shared_memory = 0);

} // namespace mlx::core::rocm
