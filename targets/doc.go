// Package targets holds mlxbuild's importable Mage targets. A parent
// repository imports it with a `// mage:import` comment in its magefile.
//
// Mage turns every exported function of this package that has a target
// signature into a target, so everything here is a thin wrapper: it parses
// arguments, calls a plain package and maps errors to exit codes. Helpers are
// unexported and logic worth testing lives in the other packages.
package targets
