//! MLX for Rust: safe wrappers over the C++ bridge (cpp/bridge.cpp) and libmlx.
use std::ffi::CStr;
use std::os::raw::{c_char, c_float, c_int};

extern "C" {
    fn bridge_backend() -> *const c_char;
    fn bridge_gpu() -> c_int;
    fn bridge_add_sum(
        a: *const c_float,
        b: *const c_float,
        scratch: *mut c_float,
        n: usize,
    ) -> c_float;
    fn mlx_version() -> *const c_char;
    fn mlx_backend_name() -> *const c_char;
}

/// What mlxbuild embedded (cargo:rustc-env): those values reach this crate
/// only, so it re-exports them for the workspace's binaries.
pub const BACKEND: &str = env!("MLXBUILD_BACKEND");
/// The MLX pin of the project file.
pub const MLX_PIN: Option<&str> = option_env!("MLXBUILD_MLX_PIN");
/// The GPU architectures compiled for (`;`-joined; none for cpu).
pub const GPU_ARCHITECTURES: Option<&str> = option_env!("MLXBUILD_GPU_ARCHITECTURES");

fn text(p: *const c_char) -> &'static str {
    // SAFETY: the bridge and libmlx return static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_str().unwrap_or("?")
}

/// The backend the bridge was compiled for (from the link plan's defines).
pub fn bridge_backend_name() -> &'static str {
    text(unsafe { bridge_backend() })
}

/// Whether the bridge was compiled with MLXBUILD_GPU_BACKEND.
pub fn bridge_is_gpu() -> bool {
    unsafe { bridge_gpu() != 0 }
}

/// The backend libmlx was built with.
pub fn mlx_backend() -> &'static str {
    text(unsafe { mlx_backend_name() })
}

/// libmlx's version string.
pub fn version() -> &'static str {
    text(unsafe { mlx_version() })
}

/// sum(a + b), computed by libmlx through the bridge.
pub fn add_sum(a: &[f32], b: &[f32]) -> f32 {
    assert_eq!(a.len(), b.len(), "add_sum needs slices of one length");
    let mut scratch = vec![0.0f32; a.len()];
    // SAFETY: the three buffers hold a.len() elements each.
    unsafe { bridge_add_sum(a.as_ptr(), b.as_ptr(), scratch.as_mut_ptr(), a.len()) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn bridge_and_library_agree() {
        assert_eq!(super::add_sum(&[1.0, 2.0], &[10.0, 20.0]), 33.0);
        assert_eq!(super::bridge_backend_name(), super::mlx_backend());
    }
}
