// Forwards the link plan that `mage build:<backend>` wrote (out/cargo.txt) to Cargo.
use std::{env, fs};

fn main() {
    println!("cargo:rerun-if-env-changed=MLXBUILD_CARGO_TXT");
    let path = env::var("MLXBUILD_CARGO_TXT").unwrap_or_else(|_| {
        panic!("MLXBUILD_CARGO_TXT is not set: run `mage build:<backend>` and set it to <cache>/<backend>/out/cargo.txt")
    });
    println!("cargo:rerun-if-changed={path}");
    let plan = fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {path} ({e}): run `mage build:<backend>` first"));
    print!("{plan}");
}
