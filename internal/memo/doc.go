// Package memo holds what mlxbuild's incrementality shares: a file's
// identity (ID, Stat), the racy rule by which a result read from files may
// be trusted on the next run (Clock), the witness of what a result was
// derived from (Witness), and the one entry format in which every memo
// keeps a result with its witnesses (Entry, Get, Store).
package memo
