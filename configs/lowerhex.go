package configs

// lowerHex reports whether s is n lower-case hexadecimal digits (a commit
// id, a sha256), as `^[0-9a-f]{n}$` would. Checked by hand: compiling
// that expression, which a no-op did for the pin, is the costliest
// compile of a no-op (docs/benchmarks.md, "Where the no-op's extra CPU
// went").
func lowerHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}
