//go:build !linux

package proc

// platformStarter: without PR_SET_PDEATHSIG and child subreapers, programs
// run in their own process group, stopped as a group.
var platformStarter starter = groupStarter{}
