//! Calls into libmlx through its C API and prints what the link plan embedded.
use std::ffi::CStr;
use std::os::raw::{c_char, c_float, c_int};

extern "C" {
    fn mlx_version() -> *const c_char;
    fn mlx_backend_name() -> *const c_char;
    fn mlx_gpu_archs() -> *const c_char;
    fn mlx_add(a: *const c_float, b: *const c_float, out: *mut c_float, n: usize) -> c_int;
    fn mlx_sum(a: *const c_float, n: usize) -> c_float;
    fn mlx_gpu_device_count() -> c_int;
}

fn text(p: *const c_char) -> String {
    // SAFETY: libmlx returns pointers to static NUL-terminated strings.
    unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
}

fn main() {
    let a = [1.0f32, 2.0, 3.0, 4.0];
    let b = [10.0f32, 20.0, 30.0, 40.0];
    let mut out = [0.0f32; 4];
    // SAFETY: the three buffers hold 4 elements each.
    let rc = unsafe { mlx_add(a.as_ptr(), b.as_ptr(), out.as_mut_ptr(), out.len()) };
    assert_eq!(rc, 0, "mlx_add failed");
    assert_eq!(out, [11.0, 22.0, 33.0, 44.0]);
    // SAFETY: out holds 4 elements.
    let sum = unsafe { mlx_sum(out.as_ptr(), out.len()) };
    assert_eq!(sum, 110.0);

    println!(
        "mlx {} backend={} library archs={}",
        text(unsafe { mlx_version() }),
        text(unsafe { mlx_backend_name() }),
        text(unsafe { mlx_gpu_archs() })
    );
    println!("mlx_add ok, mlx_sum = {sum}");
    println!("gpu devices (negative = backend error code): {}", unsafe { mlx_gpu_device_count() });
    println!(
        "embedded architectures: {}",
        option_env!("MLXBUILD_GPU_ARCHITECTURES").unwrap_or("(none)")
    );
    println!("embedded mlx pin: {}", option_env!("MLXBUILD_MLX_PIN").unwrap_or("(none)"));
}
