// Copyright © 2025 Example.
#include "mlx/backend/rocm/kernel_port.h"

// Not `#ifdef __HIP_PLATFORM_AMD__`: the port table decides.
bool RMSNorm::supports(const Device& d) const {
  return has_kernel_port(kRMSNormPorts);
}

void RMSNorm::eval_gpu(const std::vector<array>& in, array& out) {
  select_kernel_port(kRMSNormPorts, device(stream())).launch(in, out);
}
