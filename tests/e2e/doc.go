// Package e2e holds mlxbuild's end-to-end tests: testscript scripts under
// testdata/script, each a parent repository that imports the targets
// package into its own magefile and runs Mage in-process, as a user would.
// The package has no code of its own; see e2e_test.go.
package e2e
