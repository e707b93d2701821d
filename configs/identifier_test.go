package configs

import "testing"

// TestIdentifierNamesAreOneExpression: an environment variable's, a CMake
// variable's and a macro's name have one form, held in one expression, so
// a no-op that checks all three compiles it once; and that form still takes
// a C identifier and refuses anything else.
func TestIdentifierNamesAreOneExpression(t *testing.T) {
	if envName != identifier || cmakeName != identifier || cName != identifier {
		t.Error("envName, cmakeName and cName are separate expressions: each is compiled on its first use")
	}
	for s, want := range map[string]bool{"_A1": true, "CMAKE_CXX_FLAGS": true, "x": true, "1A": false, "A-B": false, "": false, "A B": false, "é": false} {
		if got := identifier.MatchString(s); got != want {
			t.Errorf("identifier.MatchString(%q) = %v, want %v", s, got, want)
		}
	}
}
