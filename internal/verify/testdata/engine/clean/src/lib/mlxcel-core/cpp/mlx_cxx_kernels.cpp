// Copyright 2026 The mlxbuild authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.

// Bridge kernels: an SSM step with Metal and CUDA ports; its dtype keys go
// through a local bound from .dtype().
#include "../../mlx-cpp/turbo/kernel_port.h"

namespace bridge {
namespace {
struct SsmHolder {
  std::optional<mlx::core::fast::CustomKernelFunction> kernel;
  mlx::core::fast::CustomKernelFunction& get(bool cuda) {
    if (!kernel) {
      kernel = cuda ? mlx::core::fast::cuda_kernel("ssm", {"x", "s"}, {"y"}, "y[0] = x[0];")
                    : mlx::core::fast::metal_kernel("ssm", {"x", "s"}, {"y"}, "y[0] = x[0];");
    }
    return *kernel;
  }
};
SsmHolder& get_ssm_kernel() { static SsmHolder h; return h; }
SsmHolder& get_ssm_kernel_cuda() { static SsmHolder h; return h; }
const engine::KernelPorts& ssm_ports() {
  static const engine::KernelPorts ports{
      .metal = +[]() -> mlx::core::fast::CustomKernelFunction& { return get_ssm_kernel().get(false); },
      .cuda = +[]() -> mlx::core::fast::CustomKernelFunction& { return get_ssm_kernel_cuda().get(true); },
  };
  return ports;
}
} // namespace

bool ssm_kernel_available() { return engine::has_kernel_port(ssm_ports()); }

mlx::core::array ssm_step(const mlx::core::array& x, const mlx::core::array& state, int heads) {
  auto T = x.dtype();
  auto& kernel = engine::select_kernel_port("ssm_step", "the ssm graph", ssm_ports());
  std::vector<std::pair<std::string, mlx::core::fast::TemplateArg>> ta = {
      {"T", T},
      {"H", heads},
  };
  return kernel({x, state}, {x.shape()}, {T}, {heads, 1, 1}, {32, 1, 1}, ta, std::nullopt, false, {})[0];
}
} // namespace bridge
