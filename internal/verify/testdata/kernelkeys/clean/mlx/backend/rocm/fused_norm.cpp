// call_once assignment, a function returning the kernel, an alias, and
// template arguments built in a variable. A comment naming hip_kernel( is
// not a call site.
#include <mutex>

#include "mlx/fast.h"

namespace mx = mlx::core;

static mx::fast::CustomKernelFunction& norm_kernel() {
  static std::once_flag flag;
  static mx::fast::CustomKernelFunction kern;
  std::call_once(flag, [] {
    kern = mx::fast::hip_kernel(
        "fused_norm", {"x", "gamma"}, {"y"}, kNormSource, /*header=*/"",
        /*ensure_row_contiguous=*/true, /*shared_memory=*/0);
  });
  return kern;
}

mx::array fused_norm(const mx::array& x, const mx::array& gamma) {
  auto& k = norm_kernel();
  std::vector<std::pair<std::string, mx::fast::TemplateArg>> targs;
  targs.emplace_back("T", x.dtype());
  targs.emplace_back("ROWS", int(x.shape(0)));
  auto out = k(
      {x, gamma},
      {x.shape()},
      {x.dtype()},
      std::make_tuple(int(x.shape(0)) * 32, 1, 1),
      std::make_tuple(32, 1, 1),
      targs,
      std::nullopt,
      false,
      mx::Device::gpu);
  return out[0];
}

mx::array scaled(const mx::array& x, mx::Dtype input_dtype) {
  auto kernel = mx::fast::hip_kernel("scaled", {"x"}, {"y"}, "y[0] = x[0];");
  return kernel({x}, {x.shape()}, {input_dtype}, {1, 1, 1}, {1, 1, 1},
                {{"T", input_dtype}}, std::nullopt, false, {})[0];
}
