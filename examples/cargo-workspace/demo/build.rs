// A dependency's rustc-link-arg does not reach this crate's binaries: take
// the run path mlx-bridge's build script published (links = "mlx").
use std::env;

fn main() {
    let runpath = env::var("DEP_MLX_RUNPATH")
        .expect("mlx-bridge publishes DEP_MLX_RUNPATH (links = \"mlx\")");
    if !runpath.is_empty() && env::var("DEP_MLX_RPATH_MODE").as_deref() == Ok("legacy") {
        println!("cargo:rustc-link-arg-bins=-Wl,--disable-new-dtags");
    }
    for dir in env::split_paths(&runpath).filter(|d| !d.as_os_str().is_empty()) {
        println!("cargo:rustc-link-arg-bins=-Wl,-rpath,{}", dir.display());
    }
}
