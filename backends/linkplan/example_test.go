package linkplan_test

import (
	"fmt"
	"log"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
)

// A parent repository's magefile reads the plan of a finished
// `mage build:rocm` (here a real one kept in testdata) and links its own
// binary with it.
func ExampleRead() {
	plan, err := linkplan.Read("testdata/rocm-minimlx") // target/mlxbuild/rocm/out in a real project
	if err != nil {
		log.Fatal(err) // names the file, and line:column when it is broken
	}
	fmt.Println(plan.Backend, plan.Env["MLXBUILD_GPU_ARCHITECTURES"])
	fmt.Print(plan.Ldflags())
	// Output:
	// rocm gfx1030;gfx90a
	// /work/main/target/mlxbuild/rocm/build/libmlx.a /work/main/target/mlxbuild/rocm/build/libmlx_rocm_kernels.a -L/usr/lib/x86_64-linux-gnu -lamdhip64 -lhiprand -lstdc++ -lopenblas -llapack -Wl,-rpath,/usr/lib/x86_64-linux-gnu
}
