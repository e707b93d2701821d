// Copyright © 2025 mlxbuild authors. SPDX-License-Identifier: MIT
//
// hip_kernel: custom kernels compiled at run time with hiprtc, like MLX's
// metal_kernel and cuda_kernel. Compiled modules are cached by name and
// template arguments, so every launch must put the input dtype in its
// template_args: two dtypes under one key would reuse the first module.
#pragma once

#include "mlx/dtype.h"

#include <hip/hip_runtime.h>

#include <string>
#include <utility>
#include <vector>

namespace mlx::core::rocm {

using TemplateArgs = std::vector<std::pair<std::string, Dtype>>;

// hip_kernel compiles (once per name + template_args + device) the kernel
// `name` from source and launches it. source sees each template argument as a
// type alias. Returns 0 or a hipError_t (hiprtc failures map to
// hipErrorInvalidSource, with the log on stderr).
int hip_kernel(
    const std::string& name,
    const char* source,
    const TemplateArgs& template_args,
    dim3 grid,
    dim3 block,
    void** args);

} // namespace mlx::core::rocm
