// The build script of every crate above mlx-sys (`build =
// "../mlx-sys/runpath.rs"` in its Cargo.toml): it gives each executable of
// the crate, and its cdylib, MLX's run path, and passes the run path on to
// the crates above it.
//
// A dependency's rustc-link-arg never reaches a dependent's link, and Cargo
// hands a build script's metadata (DEP_<LINKS>_<KEY>) to the build scripts
// of direct dependents only: mlx-sys publishes `runpath` and `rpath_mode`
// (DEP_MLX_RUNPATH), and a library crate between it and a binary crate
// declares its own `links` and publishes them again with this script
// (engine, links = "mlx-engine": DEP_MLX_ENGINE_RUNPATH for cli).
use std::env;

fn main() {
    let mut dirs: Vec<String> = Vec::new();
    let mut legacy = false;
    let mut found = false;
    let mut vars: Vec<(String, String)> = env::vars().collect();
    vars.sort();
    for (key, value) in &vars {
        let Some(links) = key.strip_prefix("DEP_").and_then(|k| k.strip_suffix("_RUNPATH")) else {
            continue;
        };
        found = true;
        for dir in env::split_paths(value).filter(|d| !d.as_os_str().is_empty()) {
            let dir = dir.display().to_string();
            if !dirs.contains(&dir) {
                dirs.push(dir);
            }
        }
        legacy |= env::var(format!("DEP_{links}_RPATH_MODE")).as_deref() == Ok("legacy");
    }
    if !found {
        panic!("no DEP_*_RUNPATH: this crate must depend on mlx-sys (links = \"mlx\") or on a crate that uses mlx-sys/runpath.rs with its own `links` key");
    }
    // rustc-link-arg, not -bins: binaries, examples, tests (the library's
    // unit tests too), benches and cdylibs all link MLX.
    if legacy && !dirs.is_empty() {
        println!("cargo:rustc-link-arg=-Wl,--disable-new-dtags");
    }
    for dir in &dirs {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{dir}");
    }
    // Metadata for the crates above, read only where this crate has `links`.
    println!("cargo:runpath={}", dirs.join(":"));
    println!("cargo:rpath_mode={}", if legacy { "legacy" } else { "runpath" });
    // Any rerun-if line stops Cargo from rerunning this on every edit of
    // the crate; it reruns when a links dependency's script reran, and
    // when this file changes (the script is compiled again).
    println!("cargo:rerun-if-env-changed=DEP_MLX_RUNPATH");
}
