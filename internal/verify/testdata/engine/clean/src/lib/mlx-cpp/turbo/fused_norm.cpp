// Copyright 2026 The mlxbuild authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.

// A launcher with three ports, dispatched through its table.
#include "fused_norm_hip.h"
#include "kernel_port.h"

namespace engine {
namespace {
constexpr const char* FUSED_NORM_METAL_SOURCE = R"(out[0] = simd_sum(x[0]);)";

struct Holder {
  std::optional<mlx::core::fast::CustomKernelFunction> kernel;
  std::once_flag once;
  mlx::core::fast::CustomKernelFunction& get(bool hip) {
    std::call_once(once, [&] {
      kernel = hip ? mlx::core::fast::hip_kernel("fused_norm", {"x"}, {"out"}, FUSED_NORM_HIP_SOURCE)
                   : mlx::core::fast::metal_kernel("fused_norm", {"x"}, {"out"}, FUSED_NORM_METAL_SOURCE);
    });
    return *kernel;
  }
};
Holder& get_fused_norm_kernel() { static Holder h; return h; }
Holder& get_fused_norm_kernel_hip() { static Holder h; return h; }

const KernelPorts& fused_norm_ports() {
  static const KernelPorts ports{
      .metal = +[]() -> mlx::core::fast::CustomKernelFunction& { return get_fused_norm_kernel().get(false); },
      .rocm = +[]() -> mlx::core::fast::CustomKernelFunction& { return get_fused_norm_kernel_hip().get(true); },
  };
  return ports;
}
} // namespace

bool fused_norm_available() {
  return has_kernel_port(fused_norm_ports());
}

mlx::core::array fused_norm(const mlx::core::array& x) {
  auto& kernel = select_kernel_port("fused_norm", "the rms_norm graph", fused_norm_ports());
  std::vector<std::pair<std::string, mlx::core::fast::TemplateArg>> template_args = {
      {"T", x.dtype()},
      {"Threads", 256},
  };
  return kernel({x}, {x.shape()}, {x.dtype()}, {256, 1, 1}, {256, 1, 1}, template_args, std::nullopt, false, {})[0];
}
} // namespace engine
