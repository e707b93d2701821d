package verify

import "bytes"

// cppSpan is a comment or a string/character literal found by scanCpp.
type cppSpan struct {
	comment bool
	raw     bool // an R"delim(...)delim" literal
	// outer is the whole comment or literal, quotes and prefix included;
	// inner is a literal's contents (for a comment, the same as outer).
	outer, inner [2]int
}

// scanCpp calls fn for every comment and string or character literal of
// C/C++ source, in order. Raw strings end at their `)delim"`; a quote after
// a digit is a C++14 digit separator (1'000), not a literal.
func scanCpp(src []byte, fn func(cppSpan)) {
	n := len(src)
	for i := 0; i < n; {
		c := src[i]
		switch {
		case c == '/' && i+1 < n && src[i+1] == '/':
			j := i
			for j < n && src[j] != '\n' {
				// A backslash-newline continues a line comment.
				if src[j] == '\\' && j+1 < n && src[j+1] == '\n' {
					j++
				}
				j++
			}
			j = min(j, n)
			fn(cppSpan{comment: true, outer: [2]int{i, j}, inner: [2]int{i, j}})
			i = j
		case c == '/' && i+1 < n && src[i+1] == '*':
			j := i + 2
			for j+1 < n && !(src[j] == '*' && src[j+1] == '/') {
				j++
			}
			j = min(j+2, n)
			fn(cppSpan{comment: true, outer: [2]int{i, j}, inner: [2]int{i, j}})
			i = j
		case c == 'R' && i+1 < n && src[i+1] == '"' && (i == 0 || !isIdent(src[i-1]) || rawPrefix(src, i)):
			// R"delim( ... )delim"
			j := i + 2
			for j < n && src[j] != '(' && src[j] != '\n' && j-i < 20 {
				j++
			}
			if j >= n || src[j] != '(' {
				i++
				continue
			}
			end := ")" + string(src[i+2:j]) + "\""
			k := indexFrom(src, end, j+1)
			if k < 0 {
				k = n
			}
			start := i
			for start > 0 && isIdent(src[start-1]) {
				start-- // the u8/L/u/U prefix belongs to the literal
			}
			outerEnd := min(k+len(end), n)
			fn(cppSpan{raw: true, outer: [2]int{start, outerEnd}, inner: [2]int{j + 1, k}})
			i = outerEnd
		case c == '"' || (c == '\'' && (i == 0 || !isDigit(src[i-1]))):
			j := i + 1
			for j < n && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j, n)
			fn(cppSpan{outer: [2]int{i, min(j+1, n)}, inner: [2]int{i + 1, j}})
			i = min(j+1, n)
		default:
			i++
		}
	}
}

// blankCpp returns a copy of C/C++ source with the contents of comments and,
// when blankStrings is set, of string and character literals (raw strings
// included) replaced by spaces. Newlines are kept, so byte offsets and line
// numbers of the copy are those of the original. Quotes stay, so an emptied
// literal still reads as an expression.
func blankCpp(src []byte, blankStrings bool) []byte {
	out := make([]byte, len(src))
	copy(out, src)
	scanCpp(src, func(s cppSpan) {
		if s.comment || blankStrings {
			blankRange(out, s.inner[0], s.inner[1])
		}
	})
	return out
}

// blankRange replaces out[from:to] with spaces, keeping newlines.
func blankRange(out []byte, from, to int) {
	for i := max(from, 0); i < to && i < len(out); i++ {
		if out[i] != '\n' {
			out[i] = ' '
		}
	}
}

// stringUnits returns the text of the string literals of src as separate
// sources of the same length as src: everything outside the literal (or a
// run of adjacent literals, which C++ concatenates) blanked, newlines kept,
// so offsets and line numbers are those of src. This is how kernel text a
// JIT compiler gets (a raw string handed to hip_kernel) is checked as code.
// want, when not nil, is asked first with the literals' contents alone, so
// that a file of many strings (error messages) costs no copy of itself per
// string; keep then selects the units worth returning, start being the
// offset of the unit's first literal.
func stringUnits(src []byte, want func(contents []byte) bool, keep func(unit []byte, start int) bool) [][]byte {
	var groups [][]cppSpan
	last := -1
	scanCpp(src, func(s cppSpan) {
		if s.comment {
			return
		}
		if last >= 0 && len(groups) > 0 && onlySpace(src[last:s.outer[0]]) {
			groups[len(groups)-1] = append(groups[len(groups)-1], s)
		} else {
			groups = append(groups, []cppSpan{s})
		}
		last = s.outer[1]
	})
	var units [][]byte
	for _, g := range groups {
		if want != nil {
			var contents []byte
			for _, s := range g {
				contents = append(append(contents, src[s.inner[0]:s.inner[1]]...), '\n')
			}
			if !want(contents) {
				continue
			}
		}
		unit := bytes.Repeat([]byte{' '}, len(src))
		for i, c := range src {
			if c == '\n' {
				unit[i] = '\n'
			}
		}
		for _, s := range g {
			copy(unit[s.inner[0]:s.inner[1]], src[s.inner[0]:s.inner[1]])
		}
		if keep(unit, g[0].outer[0]) {
			units = append(units, unit)
		}
	}
	return units
}

func onlySpace(b []byte) bool {
	for _, c := range b {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return false
		}
	}
	return true
}

// rawPrefix reports whether the R at i ends an encoding prefix (u8R, LR, uR, UR).
func rawPrefix(src []byte, i int) bool {
	j := i - 1
	for j >= 0 && isIdent(src[j]) {
		j--
	}
	p := string(src[j+1 : i])
	return p == "u8" || p == "L" || p == "u" || p == "U"
}

func indexFrom(src []byte, s string, from int) int {
	if from > len(src) {
		return -1
	}
	if k := bytes.Index(src[from:], []byte(s)); k >= 0 {
		return from + k
	}
	return -1
}

func isIdent(c byte) bool {
	return c == '_' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// boundName returns the name a literal starting at offset start
// initializes (`const char* NAME = R"(...)"`), or "".
func boundName(src []byte, start int) string {
	i := start - 1
	for i >= 0 && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i--
	}
	if i < 0 || src[i] != '=' {
		return ""
	}
	i--
	for i >= 0 && (src[i] == ' ' || src[i] == '\t') {
		i--
	}
	end := i + 1
	for i >= 0 && isIdent(src[i]) {
		i--
	}
	return string(src[i+1 : end])
}
