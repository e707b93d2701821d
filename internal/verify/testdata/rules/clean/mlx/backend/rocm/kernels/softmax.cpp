// Copyright © 2025 Example.
#include "mlx/backend/rocm/kernel_port.h"

// Supported when the port table has an entry for this device.
bool Softmax::supports(const Device& d) const {
  return has_kernel_port(kSoftmaxPorts);
}

void Softmax::eval_gpu(const std::vector<array>& in, array& out) {
  auto port = select_kernel_port(kSoftmaxPorts, device(stream()));
  port.launch(in, out);
}
