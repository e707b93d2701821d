// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
//
// Kernel ports: each GPU kernel declares a table of the dtypes it was ported
// for. Its support predicate reads has_kernel_port(<table>) and its dispatch
// goes through select_kernel_port, so what the backend claims to support is
// exactly what was compiled, with no platform #ifdef in between.
#pragma once

#include "mlx/dtype.h"

#include <cstddef>
#include <stdexcept>
#include <string>

namespace mlx::core::rocm {

template <typename Fn>
struct KernelPort {
  Dtype dtype;
  Fn fn;
};

// has_kernel_port reports whether a port table holds at least one kernel.
template <typename Fn, std::size_t N>
constexpr bool has_kernel_port(const KernelPort<Fn> (&table)[N]) {
  for (std::size_t i = 0; i < N; ++i) {
    if (table[i].fn != nullptr) {
      return true;
    }
  }
  return false;
}

// select_kernel_port returns the kernel of table for dtype, or throws
// std::invalid_argument naming the missing dtype.
template <typename Fn, std::size_t N>
Fn select_kernel_port(const KernelPort<Fn> (&table)[N], Dtype dtype) {
  for (std::size_t i = 0; i < N; ++i) {
    if (table[i].dtype == dtype && table[i].fn != nullptr) {
      return table[i].fn;
    }
  }
  throw std::invalid_argument(
      std::string("[rocm] no kernel port for dtype ") + dtype_ctype(dtype));
}

} // namespace mlx::core::rocm
