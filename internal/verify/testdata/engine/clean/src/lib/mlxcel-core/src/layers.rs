// Copyright 2026 The mlxbuild authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");

/// Gates read each kernel's own predicate. A doc comment may quote the
/// shape it avoids: `metal_is_available() || cuda_is_available()`.
pub fn rms_norm(x: &Array, w: &Array) -> Array {
    if ffi::fused_norm_available() {
        return ffi::fused_norm(x, w);
    }
    graph_rms_norm(x, w)
}

pub fn ssm<'a>(x: &'a Array) -> Array {
    if crate::ssm_kernel_available() && gpu_backend_available() {
        return ffi::ssm_step(x);
    }
    graph_ssm(x)
}
