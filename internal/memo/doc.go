// Package memo holds what mlxbuild's incrementality shares: the racy rule
// by which a result read from files may be trusted on the next run. The
// memos of the other packages move onto it one by one (issue 42).
package memo
