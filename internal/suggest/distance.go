// Package suggest measures how far a misspelt name is from the names it may
// have meant, for "did you mean" in configuration errors (spec keys,
// backends, GPU targets).
package suggest

// Distance is the Levenshtein distance between a and b, in bytes. Names
// are short; one over 64 bytes is never a typo of a known one and is
// answered as far (99) without the quadratic work.
func Distance(a, b string) int {
	if len(a) > 64 || len(b) > 64 {
		if a == b {
			return 0
		}
		return 99
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
