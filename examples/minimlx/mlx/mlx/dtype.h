// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
#pragma once

namespace mlx::core {

// Dtype is the element type of an array. Kernels are specialised per dtype,
// and a JIT cache key must name it (see the backends' custom kernels).
enum class Dtype { float32, float16, bfloat16, int32 };

// dtype_ctype is the C type that spells d in generated kernel source.
inline const char* dtype_ctype(Dtype d) {
  switch (d) {
    case Dtype::float32:
      return "float";
    case Dtype::float16:
      return "_Float16";
    case Dtype::bfloat16:
      return "__bf16";
    case Dtype::int32:
      return "int";
  }
  return "void";
}

} // namespace mlx::core
