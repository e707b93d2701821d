package arch

import (
	"errors"
	"slices"
	"testing"
)

func TestValidate(t *testing.T) {
	good := map[string][]string{
		ROCm: {"gfx1100", "gfx90a", "gfx1151", "gfx942", "gfx950", "gfx803", "gfx90a:xnack-", "gfx90a:sramecc+:xnack-",
			"gfx942:xnack+", "gfx11-generic", "gfx9-4-generic", "gfx10-3-generic", "gfx9-generic:xnack+", "gfx1152"},
		CUDA: {"86", "90a", "100f", "120", "75", "86-real", "90-virtual", "native", "all", "all-major"},
	}
	bad := map[string][]string{
		ROCm: {"", "gfx", "gfx1100;gfx90a", "gfx1100 ", "$(reboot)", "gfx1100$(x)", "GFX1100", "gfx1100:xnack", "gfx90a:xnack+:xnack-",
			"gfx90a:foo+", "amdgcn-amd-amdhsa--gfx1151", "gfx11-generic;x", "gfx0100", "gfx12345", "gfx1100:", "sm_86", "gfx-generic"},
		CUDA: {"", "8.6", "sm_86", "86;90", "9", "1000", "86b", "$(x)", "86 ", "native;86", "compute_86", "086"},
	}
	for backend, names := range good {
		for _, n := range names {
			if err := validate(backend, n); err != nil {
				t.Errorf("Validate(%s, %q) = %v, want nil", backend, n, err)
			}
		}
	}
	for backend, names := range bad {
		for _, n := range names {
			err := validate(backend, n)
			var inv *invalidError
			if !errors.As(err, &inv) {
				t.Errorf("Validate(%s, %q) = %v, want *InvalidError", backend, n, err)
			}
		}
	}
	if err := validate("metal", "x"); err == nil {
		t.Error("Validate with an unknown backend passed")
	}
}

func TestSplit(t *testing.T) {
	got := Join(Split(" gfx1100;gfx90a, gfx1151\tgfx942;;\n"))
	if got != "gfx1100;gfx90a;gfx1151;gfx942" {
		t.Errorf("Split/Join = %q", got)
	}
}

func TestTable(t *testing.T) {
	for name, want := range map[string]info{
		"gfx1151":       {name: "gfx1151", Family: "RDNA3.5", WaveSize: 32, generic: "gfx11-generic"},
		"gfx90a:xnack-": {name: "gfx90a", Family: "CDNA2", WaveSize: 64},
		"gfx942":        {name: "gfx942", Family: "CDNA3", WaveSize: 64, generic: "gfx9-4-generic"},
		"gfx950":        {name: "gfx950", Family: "CDNA4", WaveSize: 64, generic: "gfx9-4-generic"},
		"gfx1030":       {name: "gfx1030", Family: "RDNA2", WaveSize: 32, generic: "gfx10-3-generic"},
		"gfx1201":       {name: "gfx1201", Family: "RDNA4", WaveSize: 32, generic: "gfx12-generic"},
	} {
		if got, ok := Lookup(name); !ok || got != want {
			t.Errorf("Lookup(%q) = %+v, %v; want %+v", name, got, ok, want)
		}
	}
	if _, ok := Lookup("gfx1999"); ok {
		t.Error("Lookup(gfx1999) found an entry")
	}
	// Every entry must pass the grammar, or the table and validate disagree.
	for _, n := range knownTargets() {
		if err := validate(ROCm, n); err != nil {
			t.Errorf("table entry %s: %v", n, err)
		}
		info, _ := Lookup(n)
		if info.generic != "" {
			if _, ok := Lookup(info.generic); !ok {
				t.Errorf("%s names generic %s, which the table lacks", n, info.generic)
			}
		}
	}
	if !runs("gfx11-generic", "gfx1151") || !runs("gfx90a:xnack-", "gfx90a") || runs("gfx1030", "gfx1151") || runs("gfx11-generic", "gfx1030") {
		t.Error("Runs disagrees with the generic table")
	}
}

// knownTargets returns every processor and generic target in the table,
// sorted.
func knownTargets() []string {
	out := make([]string, 0, len(known()))
	for n := range known() {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
