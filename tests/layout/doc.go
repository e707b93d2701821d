// Package layout holds the test that keeps the house's rooms honest: which
// folder may import which (docs/architecture.md says why). It has no code
// of its own; see imports_test.go.
package layout
