package backends

import (
	"fmt"
	"strings"
	"testing"
)

// Seeds (testdata/fuzz/<name>/) are the real `--version` outputs of cmake,
// ninja, hipcc, hipconfig, git, ccache and sccache on this machine, Debian
// ROCm 5.2's hip_version.h, the H200 machine's nvcc and cmake (recorded in
// docs/gpu-runs.md), and edge cases.

// FuzzParseVersion: a version is found only where the text has it (the
// match occurs in the text, its segments are its numbers); otherwise the
// error quotes what was read (a number too large for go-version did not).
func FuzzParseVersion(f *testing.F) {
	f.Fuzz(func(t *testing.T, text string) {
		v, err := parseVersion(text)
		if err != nil {
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", firstLine(text))) {
				t.Fatalf("error that does not quote what was read: %v", err)
			}
			return
		}
		if !strings.Contains(text, v.Original()) {
			t.Fatalf("version %q is not in %q", v.Original(), text)
		}
		var want []string
		for _, s := range v.Segments() {
			want = append(want, fmt.Sprint(s))
		}
		if got := strings.Join(want[:strings.Count(v.Original(), ".")+1], "."); !sameNumbers(got, v.Original()) {
			t.Fatalf("segments %s of %q", got, v.Original())
		}
	})
}

// sameNumbers compares dotted numbers ignoring leading zeros ("05" is 5).
func sameNumbers(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	if len(as) != len(bs) {
		return false
	}
	for i := range as {
		if x, y := strings.TrimLeft(as[i], "0"), strings.TrimLeft(bs[i], "0"); x != y {
			return false
		}
	}
	return true
}

// FuzzParseHIPVersionH: any header parses or not without a panic; the
// three macros written as ROCm writes them, anywhere in a header, read
// back as major.minor.patch.
func FuzzParseHIPVersionH(f *testing.F) {
	f.Fuzz(func(t *testing.T, header []byte) {
		v, ok := parseHIPVersionH(header)
		if ok && len(v.Segments()) != 3 {
			t.Fatalf("version %v from %q", v, header)
		}
		if ok || strings.Contains(string(header), "HIP_VERSION_") {
			return // the round trip below needs a header without the macros
		}
		for _, n := range [][3]int{{5, 2, 21153}, {6, 1, 40091}, {7, 0, 0}} {
			h := fmt.Sprintf("%s\n#define HIP_VERSION_MAJOR %d\n#define HIP_VERSION_MINOR %d\n#define HIP_VERSION_PATCH %d\n%s", header, n[0], n[1], n[2], header)
			v, ok := parseHIPVersionH([]byte(h))
			if want := fmt.Sprintf("%d.%d.%d", n[0], n[1], n[2]); !ok || v.String() != want {
				t.Fatalf("read %v (%v) from the macros of %s", v, ok, want)
			}
		}
	})
}

// FuzzParseNvccVersion: the full version of nvcc's release line wins over
// any other number in the output; a version is only ever one the output
// holds.
func FuzzParseNvccVersion(f *testing.F) {
	f.Fuzz(func(t *testing.T, out string) {
		v, err := parseNvccVersion(out)
		if err == nil && !strings.Contains(out, v.Original()) {
			t.Fatalf("version %q is not in %q", v.Original(), out)
		}
		if strings.Contains(out, "release ") {
			return
		}
		line := "Cuda compilation tools, release 13.0, V13.0.88\n"
		v, err = parseNvccVersion(out + "\n" + line + out)
		if err != nil || v.String() != "13.0.88" {
			t.Fatalf("release line after %q read as %v (%v)", out, v, err)
		}
	})
}
