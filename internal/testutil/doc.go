// Package testutil holds the helpers that the tests of several packages
// share: checking for installed tools (skip on a developer machine, fail in
// CI), copying a fixture tree, running a program with explicit arguments, and
// reading readelf's output. It imports testing, so only _test.go files may
// import it.
package testutil
