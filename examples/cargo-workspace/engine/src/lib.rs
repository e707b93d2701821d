//! The engine: what the binaries use, over mlx-sys.

/// One line that says which libmlx and bridge this process runs.
pub fn describe() -> String {
    format!(
        "mlx {} backend={} bridge={} gpu_define={} add_sum={}",
        mlx_sys::version(),
        mlx_sys::mlx_backend(),
        mlx_sys::bridge_backend_name(),
        mlx_sys::bridge_is_gpu(),
        mlx_sys::add_sum(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]),
    )
}

/// The backend and architectures mlxbuild embedded in mlx-sys.
pub fn built_for() -> String {
    format!(
        "built by mlxbuild for {} architectures={}",
        mlx_sys::BACKEND,
        mlx_sys::GPU_ARCHITECTURES.unwrap_or("none")
    )
}

/// The cdylib's entry: the add_sum of describe(), for a C caller.
#[no_mangle]
pub extern "C" fn engine_add_sum() -> f32 {
    mlx_sys::add_sum(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0])
}

#[cfg(test)]
mod tests {
    #[test]
    fn engine_unit_sees_mlx() {
        assert!(super::describe().ends_with("add_sum=66"), "{}", super::describe());
    }
}
