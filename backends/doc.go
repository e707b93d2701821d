// Package backends says what each backend is: how its toolchain is found and
// what it can compile (rocm.go, cuda.go), which backends a request selects and
// which conflict (select.go), and what a consumer links with which run path
// (planlink.go, which makes the plan whose type and reader live in
// backends/linkplan). It runs programs only through internal/proc, and only to ask
// versions or to compile a probe; it knows nothing of Mage.
//
// It is mlxbuild's own API, not supported for parent repositories: a
// parent's magefile imports targets, and reads a build's link plan with
// backends/linkplan.
package backends
