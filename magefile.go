//go:build mage

// mlxbuild's own magefile: every target of the importable package targets,
// as a parent repository would import them, over this repository's
// mlxbuild.yaml (the bundled example).
package main

import (
	//mage:import
	_ "github.com/mlxbuild/mlxbuild/targets"
)
