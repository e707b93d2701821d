//! Times engine's add_sum.
fn main() {
    let t = std::time::Instant::now();
    let line = engine::describe();
    println!("bench-tool: {line} in {:?}", t.elapsed());
}
