//go:build !linux

package proc

// leafStarter: without a death signal, the process group stop is all there is.
var leafStarter starter = groupStarter{}
