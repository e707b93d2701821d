// Copyright 2026 The mlxbuild authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.

// The helper itself may name the backend: it is the one place that does.
#include "kernel_port.h"

namespace engine {
namespace {
KernelPortGetter port_for(const KernelPorts& p) {
  if (gpu_kernel_backend() == GpuKernelBackend::Metal) return p.metal;
  if (gpu_kernel_backend() == GpuKernelBackend::Cuda) return p.cuda;
  return p.rocm;
}
} // namespace

bool has_kernel_port(const KernelPorts& ports) { return port_for(ports) != nullptr; }

mlx::core::fast::CustomKernelFunction& select_kernel_port(const char* entry, const char* fallback, const KernelPorts& ports) {
  if (auto get = port_for(ports)) {
    return get();
  }
  throw std::runtime_error(std::string(entry) + ": no port for this backend; use " + fallback);
}
} // namespace engine
