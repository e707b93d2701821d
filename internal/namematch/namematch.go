// Package namematch checks names of one simple shape, a first character
// from one ASCII set and the rest from another (or exactly n characters of
// one set), without regular expressions: configuration loading validates
// every name on every run, and compiling the expressions it used cost each
// run more than all the checks together. Each Word states the expression
// it stands for; a differential fuzz test holds them equal.
package namematch

// Word matches ^[First][Rest]*$, or with N > 0 exactly N characters of
// Rest (^[Rest]{N}$), where First and Rest are sets of ASCII characters.
type Word struct {
	first, rest set
	n           int
}

// set is a set of ASCII characters.
type set [2]uint64

func (s *set) add(c byte)     { s[c/64] |= 1 << (c % 64) }
func (s set) has(c byte) bool { return c < 128 && s[c/64]&(1<<(c%64)) != 0 }

// chars makes a set from a class body as in a regular expression: single
// characters and ranges a-z ("-" last is itself).
func chars(class string) set {
	var s set
	for i := 0; i < len(class); i++ {
		if i+2 < len(class) && class[i+1] == '-' {
			for c := class[i]; c <= class[i+2]; c++ {
				s.add(c)
			}
			i += 2
			continue
		}
		s.add(class[i])
	}
	return s
}

// New is ^[first][rest]*$.
func New(first, rest string) Word { return Word{first: chars(first), rest: chars(rest)} }

// Exactly is ^[class]{n}$.
func Exactly(class string, n int) Word { return Word{rest: chars(class), n: n} }

// MatchString reports whether s has the word's shape.
func (w Word) MatchString(s string) bool {
	if w.n > 0 {
		return len(s) == w.n && allIn(w.rest, s)
	}
	return s != "" && w.first.has(s[0]) && allIn(w.rest, s[1:])
}

func allIn(s set, t string) bool {
	for i := 0; i < len(t); i++ {
		if !s.has(t[i]) {
			return false
		}
	}
	return true
}
