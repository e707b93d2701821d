// An integration test of engine: its own executable, which links MLX.
#[test]
fn engine_integration_sees_mlx() {
    assert!(engine::describe().ends_with("add_sum=66"));
}
