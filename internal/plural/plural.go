// Package plural writes counted nouns as a person would: "1 file",
// "2 files", "0 files", "1 dependency", "3 dependencies". Every message
// that prints a count goes through it, so none says "1 files" or "file(s)".
package plural

import (
	"strconv"
	"strings"
)

// Count is n, a space and noun, in the plural unless n is 1:
// Count(1, "call site") is "1 call site", Count(3, "dependency") is
// "3 dependencies".
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Noun(n, noun)
}

// Noun is noun as it goes after the count n: itself for 1, its plural
// otherwise ("0 files", "2 files"); for "3 of 4 files", Noun(4, "file").
func Noun(n int, noun string) string {
	if n == 1 {
		return noun
	}
	return Of(noun)
}

// Of is the plural of a singular noun or noun phrase (its last letters
// decide): "file" -> "files", "dependency" -> "dependencies", "hash" ->
// "hashes", "process" -> "processes". mlxbuild's messages use no irregular
// noun; one that needs another form says so where it prints.
func Of(noun string) string {
	switch {
	case noun == "":
		return noun
	case strings.HasSuffix(noun, "y") && len(noun) > 1 && !isVowel(noun[len(noun)-2]):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(noun, "s"), strings.HasSuffix(noun, "x"), strings.HasSuffix(noun, "z"),
		strings.HasSuffix(noun, "ch"), strings.HasSuffix(noun, "sh"):
		return noun + "es"
	}
	return noun + "s"
}

func isVowel(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }
