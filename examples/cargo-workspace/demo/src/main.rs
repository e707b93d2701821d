//! Prints what libmlx and the bridge were built for, and one result.
fn main() {
    let sum = mlx_bridge::add_sum(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]);
    println!(
        "demo: mlx {} backend={} bridge={} gpu_define={} add_sum={sum}",
        mlx_bridge::version(),
        mlx_bridge::mlx_backend(),
        mlx_bridge::bridge_backend_name(),
        mlx_bridge::bridge_is_gpu(),
    );
    println!(
        "demo: built by mlxbuild for {} architectures={}",
        mlx_bridge::BACKEND,
        mlx_bridge::GPU_ARCHITECTURES.unwrap_or("none")
    );
}
