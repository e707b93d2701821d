package arch

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// TestCUDAForms: MLX_CUDA_ARCHITECTURES takes what the reference user
// measures on a GB10 (121, 121a-real;121, 121a), the family forms of
// CUDA 12.9+ (120f, 100f) and the aarch64 data-center parts (90a for
// GH200, 103 for GB300, 110 for Thor under CUDA 13), and refuses
// nonsense with one configuration error (exit 2) that names the variable
// and says what to write instead.
func TestCUDAForms(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		value string
		want  string // the resolved list, or for an error a part of its message
		ok    bool
	}{
		{"121", "121", true},
		{"121a-real;121", "121;121a-real", true},
		{"121a", "121a", true},
		{"120f", "120f", true},
		{"100f;100a-real", "100a-real;100f", true},
		{"90a", "90a", true},
		{"103a-virtual", "103a-virtual", true},
		{"110;120", "110;120", true},
		{"101a", "101a", true},
		{"130", "130", true}, // newer than the table: the toolkit's list judges it
		{"12.1", "write it as 121 (CMake style, no dot)", false},
		{"9.0a", "write it as 90a", false},
		{"86a", "sm_86 has no architecture-specific (a) form: those start with 90a", false},
		{"90f", "sm_90 has no family (f) form: those start with 100f (CUDA 12.9+)", false},
		{"89f-real", "sm_89 has no family (f) form", false},
		{"85", "no CUDA GPU has compute capability 85; did you mean 86 or 87?", false},
		{"115a", "no CUDA GPU has compute capability 115; did you mean 110 or 120?", false},
		{"121a-real-virtual", "want a compute capability such as 86, 90a, 100f or 121a-real", false},
		{"121af", "want a compute capability", false},
		{"sm_121a", "want a compute capability", false},
	} {
		r, err := ResolveCUDA(context.Background(), envOptions(EnvCUDA, tt.value, dir))
		if tt.ok {
			if err != nil || Join(r.Targets) != tt.want {
				t.Errorf("%s=%q: got %q, %v; want %q", EnvCUDA, tt.value, Join(r.Targets), err, tt.want)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s=%q: resolved to %q, want an error", EnvCUDA, tt.value, r.Targets)
			continue
		}
		msg := err.Error()
		if fail.ExitCode(err) != 2 || !strings.Contains(msg, tt.want) || !strings.HasPrefix(msg, EnvCUDA+"=") || strings.Contains(msg, "\n") {
			t.Errorf("%s=%q: got exit %d %q; want one line starting %s= with %q", EnvCUDA, tt.value, fail.ExitCode(err), msg, EnvCUDA, tt.want)
		}
	}
}

// TestCUDATable: the 10.x/12.x parts and the aarch64 hosts are known,
// Thor's CUDA 13 rename is recorded, and every entry's number passes
// the grammar with each suffix its generation has.
func TestCUDATable(t *testing.T) {
	for target, parts := range map[string]string{
		"90a": "GH200", "100": "B200", "103": "GB300", "110": "Thor", "120f": "RTX 50xx", "121a-real": "GB10", "89": "Ada",
	} {
		c, ok := LookupCUDA(target)
		if !ok || !strings.Contains(c.parts, parts) {
			t.Errorf("LookupCUDA(%q) = %+v, %v; want parts with %q", target, c, ok, parts)
		}
	}
	if c, _ := LookupCUDA("101"); c.RenamedTo != "110" {
		t.Errorf("101 (Thor under CUDA 12.8-12.9): RenamedTo = %q, want 110", c.RenamedTo)
	}
	if _, ok := LookupCUDA("85"); ok {
		t.Error("LookupCUDA(85) found an entry")
	}
	for n := range cudaChips {
		s := strconv.Itoa(n)
		for _, suffix := range []string{"", "a", "f"} {
			err := validate(CUDA, s+suffix)
			var inv *invalidError
			wantOK := cudaSuffixProblem(n, suffix) == ""
			if wantOK != (err == nil) || (err != nil && !errors.As(err, &inv)) {
				t.Errorf("validate(%s%s) = %v, want ok=%v", s, suffix, err, wantOK)
			}
		}
		if c := cudaChips[n]; c.RenamedTo != "" {
			if _, ok := LookupCUDA(c.RenamedTo); !ok {
				t.Errorf("%d is renamed to %s, which the table lacks", n, c.RenamedTo)
			}
		}
	}
}

// FuzzValidateCUDA: a CUDA name either passes (and then its number and
// suffix are a form that exists) or is an *invalidError quoting it; a
// dotted capability's suggested spelling always passes the grammar.
// Seeds: testdata/fuzz/FuzzValidateCUDA.
func FuzzValidateCUDA(f *testing.F) {
	f.Fuzz(func(t *testing.T, name string) {
		err := validate(CUDA, name)
		if err == nil {
			if cudaKeywords[name] {
				return
			}
			m := cudaRe.FindStringSubmatch(name)
			if m == nil {
				t.Fatalf("%q passed without matching the grammar", name)
			}
			return
		}
		var inv *invalidError
		if !errors.As(err, &inv) || !strings.Contains(err.Error(), strconv.Quote(name)) {
			t.Fatalf("%q: %T %v", name, err, err)
		}
		if fixed, ok := cudaDotted(name); ok && !cudaRe.MatchString(fixed) {
			t.Fatalf("%q suggests %q, which is not well formed", name, fixed)
		}
	})
}
