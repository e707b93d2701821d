package verify

// token is one C++ token of blanked source (see blankCpp): an identifier or
// number, a string or character literal (its contents blanked), `::`, `->`,
// or a single punctuation character.
type token struct {
	text string
	off  int // byte offset in the source
}

// tokenize splits blanked C++ source into tokens. Preprocessor lines are kept
// as tokens like any other code; the checks that use tokens look for
// expressions, which directives do not form.
func tokenize(src []byte) []token {
	var toks []token
	n := len(src)
	for i := 0; i < n; {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c == '\\':
			i++
		case isIdent(c):
			j := i + 1
			for j < n && isIdent(src[j]) {
				j++
			}
			// A literal with an encoding prefix (u8"..", R"(..)") is one token.
			if j < n && (src[j] == '"' || src[j] == '\'') && !isDigit(c) {
				k := literalEnd(src, j)
				toks = append(toks, token{string(src[i:k]), i})
				i = k
				continue
			}
			toks = append(toks, token{string(src[i:j]), i})
			i = j
		case c == '"' || c == '\'':
			k := literalEnd(src, i)
			toks = append(toks, token{string(src[i:k]), i})
			i = k
		case c == ':' && i+1 < n && src[i+1] == ':', c == '-' && i+1 < n && src[i+1] == '>':
			toks = append(toks, token{string(src[i : i+2]), i})
			i += 2
		default:
			toks = append(toks, token{string(src[i : i+1]), i})
			i++
		}
	}
	return toks
}

// literalEnd returns the offset just past the literal starting with the
// quote at i. Raw strings were blanked, but their delimiters remain, so a
// raw string ends at its `)delim"`.
func literalEnd(src []byte, i int) int {
	n := len(src)
	q := src[i]
	if q == '"' && i > 0 && src[i-1] == 'R' {
		j := i + 1
		for j < n && src[j] != '(' && j-i < 20 {
			j++
		}
		if j < n && src[j] == '(' {
			if k := indexFrom(src, ")"+string(src[i+1:j])+"\"", j+1); k >= 0 {
				return k + j - i + 1
			}
		}
	}
	j := i + 1
	for j < n && src[j] != q && src[j] != '\n' {
		if src[j] == '\\' {
			j++
		}
		j++
	}
	return min(j+1, n)
}

func (t token) isIdent() bool {
	return t.text != "" && isIdent(t.text[0]) && !isDigit(t.text[0]) &&
		t.text[len(t.text)-1] != '"' && t.text[len(t.text)-1] != '\''
}

// matching returns the index of the bracket closing the one at i, or -1.
func matching(toks []token, i int) int {
	open := toks[i].text
	close := map[string]string{"(": ")", "[": "]", "{": "}"}[open]
	depth := 0
	for j := i; j < len(toks); j++ {
		switch toks[j].text {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// matchingBack returns the index of the bracket opening the one at i, or -1.
func matchingBack(toks []token, i int) int {
	closeTok := toks[i].text
	open := map[string]string{")": "(", "]": "[", "}": "{"}[closeTok]
	depth := 0
	for j := i; j >= 0; j-- {
		switch toks[j].text {
		case closeTok:
			depth++
		case open:
			depth--
			if depth == 0 {
				return j
			}
		}
	}
	return -1
}

// enclosingBrace returns the index of the unmatched `{` before i, or -1 at
// file scope.
func enclosingBrace(toks []token, i int) int {
	depth := 0
	for j := i - 1; j >= 0; j-- {
		switch toks[j].text {
		case "}":
			depth++
		case "{":
			if depth == 0 {
				return j
			}
			depth--
		}
	}
	return -1
}

// splitArgs returns the top-level, comma-separated arguments between the
// parentheses at open and close (exclusive), as token index ranges.
func splitArgs(toks []token, open, close int) [][2]int {
	if close == open+1 {
		return nil
	}
	var args [][2]int
	depth := 0
	start := open + 1
	for j := open + 1; j < close; j++ {
		switch toks[j].text {
		case "(", "[", "{":
			depth++
		case ")", "]", "}":
			depth--
		case ",":
			if depth == 0 {
				args = append(args, [2]int{start, j})
				start = j + 1
			}
		}
	}
	return append(args, [2]int{start, close})
}
