package proc

import (
	"strings"
	"syscall"
	"testing"
)

// TestBecomeSubreaperUnderEmulation: where prctl does not know
// PR_SET_CHILD_SUBREAPER (EINVAL: qemu-user, in an emulated arm64 root)
// the supervisor goes on without it, so programs still start; any other
// refusal is still an error that names the call.
func TestBecomeSubreaperUnderEmulation(t *testing.T) {
	for _, tt := range []struct {
		errno syscall.Errno
		ok    bool
	}{{0, true}, {syscall.EINVAL, true}, {syscall.EPERM, false}} {
		err := becomeSubreaper(func() syscall.Errno { return tt.errno })
		if (err == nil) != tt.ok || (err != nil && !strings.Contains(err.Error(), "PR_SET_CHILD_SUBREAPER")) {
			t.Errorf("prctl answering %v: %v, want ok=%v", tt.errno, err, tt.ok)
		}
	}
}
