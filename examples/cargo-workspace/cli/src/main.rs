//! Prints what libmlx and the bridge were built for, and one result.
fn main() {
    println!("cli: {}", engine::describe());
    println!("cli: {}", engine::built_for());
}

#[cfg(test)]
mod tests {
    #[test]
    fn cli_unit_sees_mlx() {
        assert!(engine::describe().ends_with("add_sum=66"));
    }
}
