//! A bench (harness = false): its own executable, which links MLX.
fn main() {
    let t = std::time::Instant::now();
    for _ in 0..100 {
        assert_eq!(engine_sum(), 66.0);
    }
    println!("add_sum: {:?} per call", t.elapsed() / 100);
}

fn engine_sum() -> f32 {
    engine::engine_add_sum()
}
