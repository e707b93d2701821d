package bundle

import "github.com/mlxbuild/mlxbuild/arch"

// archEnv is a machine whose GPUs are the list, as MLX_ROCM_ARCHITECTURES
// says them (no probe runs).
func archEnv(list string) arch.Options {
	return arch.Options{Env: func(k string) string {
		if k == "MLX_ROCM_ARCHITECTURES" {
			return list
		}
		return ""
	}}
}
