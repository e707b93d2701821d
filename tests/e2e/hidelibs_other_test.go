//go:build !linux

package e2e_test

import (
	"fmt"
	"os"
)

// hideLibs needs Linux's mount namespaces; bundle_rocm.txtar runs on Linux.
func hideLibs() int {
	fmt.Fprintln(os.Stderr, "hidelibs: Linux only")
	return 2
}
