package backends

// metal is MLX's macOS GPU backend: Xcode's compilers, no architectures to
// resolve.
func init() { Register(&Backend{Name: "metal", Switch: "MLX_BUILD_METAL", Order: 3}) }
