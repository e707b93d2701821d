//go:build ignore

// mage.go runs Mage without installing it: `go run mage.go <target>`.
// `go run mage.go -compile ./bin/mlxbuild` makes a binary that keeps exit
// codes (go run collapses them to 1); `go run mage.go -l` lists the targets.
package main

import (
	"os"

	"github.com/magefile/mage/mage"
)

func main() {
	// The Mage binary is built without cgo unless CGO_ENABLED says
	// otherwise. Nothing in mlxbuild calls C: cgo comes in only with net's
	// system resolver and os/user's libc look-up, which the standard
	// library does in Go without it. A cgo binary is linked against libc
	// and starts through the dynamic loader and cgo's thread set-up, a
	// cost every run pays (docs/benchmarks.md). The variable reaches the targets' own commands
	// too; of those only `go` reads it (mage test's vet and tests need no
	// cgo).
	if _, set := os.LookupEnv("CGO_ENABLED"); !set {
		os.Setenv("CGO_ENABLED", "0")
	}
	os.Exit(mage.Main())
}
