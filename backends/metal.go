package backends

// metal is MLX's macOS GPU backend: Xcode's compilers, no architectures to
// resolve.
func init() { register(&Backend{Name: "metal", Switch: "MLX_BUILD_METAL", order: 3}) }
