// Package targets holds mlxbuild's importable Mage targets. A parent
// repository imports it with a `// mage:import` comment in its magefile.
//
// Mage turns every exported function of this package that has a target
// signature into a target, so everything here is a thin wrapper: it parses
// arguments, calls a plain package and maps errors to exit codes. Helpers are
// unexported and logic worth testing lives in the other packages.
//
// Mage makes a target only of a method written out, so each backend has
// one line per backend-namespaced target here (build, verify, plan,
// bundle: four lines for a new backend), each passing the backend's name
// to the function every backend shares; nothing else in this package
// lists backends, and everything past that name comes from the backend's
// spec and its registration in package backends.
package targets
