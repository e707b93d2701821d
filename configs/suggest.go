package configs

import editdist "github.com/mlxbuild/mlxbuild/internal/suggest"

// suggest returns the candidate closest to word within edit distance 2, or
// "" when none is that close. Ties go to the earlier candidate so messages
// are stable.
func suggest(word string, candidates []string) string {
	best, bestD := "", 3
	for _, c := range candidates {
		if d := editdist.Distance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
