// Copyright 2026 The mlxbuild authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.

// Metal only: its cache key already carries the input dtypes, so the
// template_args below need none (out of the dtype-key scope).
#include "kernel_port.h"

namespace engine {
namespace {
struct SparseHolder {
  std::optional<mlx::core::fast::CustomKernelFunction> kernel;
  mlx::core::fast::CustomKernelFunction& get() {
    if (!kernel) kernel = mlx::core::fast::metal_kernel("sparse_v", {"q"}, {"o"}, "o[0] = q[0];");
    return *kernel;
  }
};
SparseHolder& get_sparse_v_kernel() { static SparseHolder h; return h; }
const KernelPorts& sparse_v_ports() {
  static const KernelPorts ports{.metal = +[]() -> mlx::core::fast::CustomKernelFunction& { return get_sparse_v_kernel().get(); }};
  return ports;
}
} // namespace

bool sparse_v_available() { return has_kernel_port(sparse_v_ports()); }

mlx::core::array sparse_v(const mlx::core::array& q, int dim) {
  auto& kernel = select_kernel_port("sparse_v", "the dense sdpa", sparse_v_ports());
  std::vector<std::pair<std::string, mlx::core::fast::TemplateArg>> targs = {{"Dim", dim}};
  return kernel({q}, {q.shape()}, {q.dtype()}, {dim, 1, 1}, {dim, 1, 1}, targs, std::nullopt, false, {})[0];
}
} // namespace engine
