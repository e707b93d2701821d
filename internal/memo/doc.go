// Package memo holds what mlxbuild's incrementality shares: the racy rule
// by which a result read from files may be trusted on the next run, the
// witness of what a result was derived from, and the one entry format in
// which every memo keeps a result with its witnesses (issue 42).
package memo
