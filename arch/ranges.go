package arch

import (
	"sort"
	"strconv"
	"strings"
)

// numberList renders ids for provenance, sorted and deduplicated: runs of
// three or more become "a-b" ("0-7"), shorter runs stay listed ("1,2").
func numberList(in []int) string {
	seen := map[int]bool{}
	var ids []int
	for _, id := range in {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	sort.Ints(ids)
	var parts []string
	for i := 0; i < len(ids); {
		j := i
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		if j-i >= 2 {
			parts = append(parts, strconv.Itoa(ids[i])+"-"+strconv.Itoa(ids[j]))
		} else {
			for k := i; k <= j; k++ {
				parts = append(parts, strconv.Itoa(ids[k]))
			}
		}
		i = j + 1
	}
	return strings.Join(parts, ",")
}

// dedupe sorts and deduplicates names with less.
func dedupe(names []string, less func(a, b string) bool) []string {
	seen := map[string]bool{}
	var out []string
	for _, n := range names {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Slice(out, func(i, j int) bool { return less(out[i], out[j]) })
	return out
}

// cudaLess orders compute capabilities numerically ("75" < "86" < "100"),
// then by suffix; keywords sort last.
func cudaLess(a, b string) bool {
	na, nb := leadingInt(a), leadingInt(b)
	if na != nb {
		return na < nb
	}
	return a < b
}

func leadingInt(s string) int {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	if i == 0 {
		return 1 << 30
	}
	n, _ := strconv.Atoi(s[:i])
	return n
}
