//go:build ignore

// mage.go runs Mage without installing it: `go run mage.go <target>`.
// `go run mage.go -l` lists the targets; `go run mage.go -compile ./bin/mlxbuild`
// makes a binary that keeps exit codes (go run collapses them to 1).
package main

import (
	"os"

	"github.com/magefile/mage/mage"
)

func main() { os.Exit(mage.Main()) }
