//! An example of cli: its own executable, which links MLX.
fn main() {
    println!("hello: {}", engine::describe());
}
