// Builds MLX with mlxbuild for the backend this crate's features select,
// compiles the C++ bridge against the tree, and forwards the link plan.
use std::env;
use std::path::Path;
use std::process::{exit, Command, Stdio};

// mlxbuild's target for build scripts, as the project's magefile imports it
// (`mlx:build:cargo` under `//mage:import mlx`).
const TARGET: &str = "build:cargo";

fn main() {
    // The project root: the nearest directory above this crate that holds
    // mlxbuild.yaml; the magefile that imports mlxbuild's targets is there.
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .find(|dir| dir.join("mlxbuild.yaml").is_file())
        .expect("no mlxbuild.yaml in a directory above this crate");
    // MLXBUILD_MAGE may name a compiled Mage binary; else Go runs the magefile.
    let mut mage = match env::var_os("MLXBUILD_MAGE") {
        Some(bin) => Command::new(bin),
        None => {
            let mut go = Command::new("go");
            go.args(["run", "mage.go"]);
            go
        }
    };
    let out = mage
        .arg(TARGET)
        .current_dir(root)
        .stderr(Stdio::inherit())
        .output();
    let out = out.unwrap_or_else(|e| {
        panic!(
            "cannot run mlxbuild in {}: {e}; install Go or set MLXBUILD_MAGE",
            root.display()
        )
    });
    if !out.status.success() {
        exit(out.status.code().unwrap_or(1)); // mlxbuild's message is on stderr
    }
    let plan = String::from_utf8(out.stdout).expect("cargo.txt is UTF-8");
    // MLXBUILD_CHECK_ONLY=1 (an editor, a lint job) or docs.rs: mlxbuild
    // built nothing and prints no link line; the bridge is not compiled
    // either, since nothing will be linked.
    let check_only = plan.lines().any(|line| line == "cargo:check_only=1");

    let mut bridge = cc::Build::new();
    bridge.cpp(true).file("cpp/bridge.cpp");
    for line in plan.lines() {
        let Some((key, value)) = line.strip_prefix("cargo:").and_then(|l| l.split_once('=')) else {
            continue;
        };
        match key {
            "include" => env::split_paths(value).for_each(|dir| {
                bridge.include(dir);
            }),
            "defines" => value.split_whitespace().for_each(|d| {
                let (name, val) = d.split_once('=').map_or((d, None), |(n, v)| (n, Some(v)));
                bridge.define(name, val);
            }),
            "cxx_std" if !value.is_empty() => {
                bridge.flag(&format!("-std={value}"));
            }
            _ => {}
        }
    }
    if !check_only {
        bridge.compile("mlx_bridge"); // before the plan: the bridge links before libmlx
    }
    print!("{plan}");
    println!("cargo:rerun-if-changed=cpp");
    println!("cargo:rerun-if-env-changed=MLXBUILD_MAGE");
}
