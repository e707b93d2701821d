package safepath

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckControl(t *testing.T) {
	for _, ok := range []string{"", "/opt/rocm", "/opt/ROCm 6.2/bin", "patches-rocm/ü", "mlx/tab\there.h"} {
		if err := CheckControl(ok); err != nil {
			t.Errorf("CheckControl(%q) = %v, want nil", ok, err)
		}
	}
	for path, want := range map[string]string{
		"ov\ncargo:rustc-link-arg=-Wl,evil": "a newline at byte 2",
		"a\rb":                              "a carriage return at byte 1",
		"a\x00b":                            "a NUL byte at byte 1",
		"\x1bx":                             "the control character 0x1b at byte 0",
		"x\x7f":                             "the control character 0x7f at byte 1",
	} {
		err := CheckControl(path)
		var ce *ControlError
		if !errors.As(err, &ce) || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckControl(%q) = %v, want an error with %q", path, err, want)
		}
	}
}
