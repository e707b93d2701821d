// An integration test of cli: its own executable, which links MLX.
#[test]
fn cli_integration_sees_mlx() {
    assert!(engine::describe().ends_with("add_sum=66"));
}
