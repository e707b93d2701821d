package backends

// cpu is MLX's base build: no toolchain beyond the system's compilers, no
// architectures, no switch (every GPU backend builds on it).
func init() { Register(&Backend{Name: "cpu", Order: 0}) }
