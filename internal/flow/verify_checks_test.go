package flow

import (
	"slices"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
)

// TestEveryVerifyCheckHasAMaker: the checks a spec may name (the table the
// validator reads) and those verify can make are the same.
func TestEveryVerifyCheckHasAMaker(t *testing.T) {
	named := map[string]bool{}
	for _, c := range configs.VerifyChecks {
		named[c.Name] = true
		if _, ok := checkMakers[c.Name]; !ok {
			t.Errorf("a spec may name the check %s, but verify has no maker for it", c.Name)
		}
	}
	for name := range checkMakers {
		if !named[name] {
			t.Errorf("verify makes a check %s that configs.VerifyChecks lacks, so no spec may name it", name)
		}
	}
}

// TestConfigsCopiesTheBuiltinChecks: configs validates specs against its
// copy of the built-in checks' entries (builtin_gen.go); a check changed
// here without go generate ./configs fails.
func TestConfigsCopiesTheBuiltinChecks(t *testing.T) {
	want := BuiltinVerifyChecks()
	if got := configs.VerifyChecks; len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Fatalf("configs.VerifyChecks is\n%+v\nverify's built-in checks are\n%+v\nrun go generate ./configs", got, want)
	}
}
