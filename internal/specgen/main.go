//go:build specgen

// Command specgen writes configs/builtin_gen.go: the embedded built-in specs
// parsed at generate time and printed as Go literals, so that no run of
// mlxbuild parses YAML for them, with the backend names in the order of
// package backends' registry and the verify checks of package flow. Run it
// as go generate ./configs, which runs
//
//	go run -tags specgen ../internal/specgen -o builtin_gen.go
//
// in configs/. It lives outside configs/ because it imports internal/flow,
// which no room of the design card may. The tag leaves the old builtin_gen.go out of the build, so a
// stale one that no longer compiles does not stop its own regeneration.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
)

func main() {
	out := flag.String("o", "builtin_gen.go", "the file to write")
	flag.Parse()
	src, err := configs.GeneratedSource(backends.Names(), flow.BuiltinVerifyChecks())
	if err == nil {
		err = atomicfile.Write(*out, src, 0o644)
	}
	if err != nil {
		// A spec that does not parse exits 2, like mlxbuild itself.
		fmt.Fprintln(os.Stderr, "specgen:", fail.Message(err))
		os.Exit(fail.ExitCode(err))
	}
}
