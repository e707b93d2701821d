package verify

import "bytes"

// blankCpp returns a copy of C/C++ source with the contents of comments and,
// when blankStrings is set, of string and character literals (raw strings
// included) replaced by spaces. Newlines are kept, so byte offsets and line
// numbers of the copy are those of the original. Quotes stay, so an emptied
// literal still reads as an expression.
func blankCpp(src []byte, blankStrings bool) []byte {
	out := make([]byte, len(src))
	copy(out, src)
	blank := func(from, to int) {
		for i := from; i < to && i < len(out); i++ {
			if out[i] != '\n' {
				out[i] = ' '
			}
		}
	}
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
			blank(i, j)
			i = j
		case c == '/' && i+1 < n && src[i+1] == '*':
			j := i + 2
			for j+1 < n && !(src[j] == '*' && src[j+1] == '/') {
				j++
			}
			j = min(j+2, n)
			blank(i, j)
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
			if blankStrings {
				blank(j+1, k)
			}
			i = min(k+len(end), n)
		case c == '"' || (c == '\'' && (i == 0 || !isDigit(src[i-1]))):
			// A quote after a digit is a C++14 digit separator (1'000).
			j := i + 1
			for j < n && src[j] != c && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			if blankStrings {
				blank(i+1, j)
			}
			i = min(j+1, n)
		default:
			i++
		}
	}
	return out
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
	if k := bytes.Index(src[from:], []byte(s)); k >= 0 {
		return from + k
	}
	return -1
}

func isIdent(c byte) bool {
	return c == '_' || isDigit(c) || (c|0x20 >= 'a' && c|0x20 <= 'z')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
