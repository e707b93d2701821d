package ui

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape makes text that came from outside mlxbuild (a file's content, a
// name read from a file, a path) safe to print as one line on a terminal:
// every control character (C0, DEL, C1), every character that reorders or
// separates lines (bidirectional controls, U+2028/U+2029) and every byte
// that is not UTF-8 is written as an escape, \n, \t, \x1b, \u202e, \xff, as
// %q writes them. Printed raw, an ESC sequence in a benchmark's model name
// recoloured or rewrote the user's terminal, and a newline forged a line of
// mlxbuild's own. Unlike %q it adds no quotes and leaves every printable
// character as it is (letters of any script, spaces, backslashes): the
// result is for a person to read, and text with nothing to escape comes
// back unchanged.
func Escape(s string) string { return escape(s, false) }

// EscapeLines is Escape for text of several lines (a finding's message, an
// error): newlines and tabs stay, everything else Escape escapes is
// escaped.
func EscapeLines(s string) string { return escape(s, true) }

func escape(s string, keepLines bool) string {
	i := firstUnsafe(s, keepLines)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !unsafe(r, keepLines):
			b.WriteString(s[i : i+size])
		case r < 0x80:
			b.WriteString(asciiEscape(byte(r)))
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// firstUnsafe is the offset of the first byte to escape, -1 for none.
func firstUnsafe(s string, keepLines bool) int {
	for i, r := range s {
		if (r == utf8.RuneError && !validAt(s, i)) || unsafe(r, keepLines) {
			return i
		}
	}
	return -1
}

// validAt reports whether the U+FFFD at s[i] is written in s as such, not
// a byte that is not UTF-8.
func validAt(s string, i int) bool {
	_, size := utf8.DecodeRuneInString(s[i:])
	return size == 3
}

// unsafe reports whether r must be escaped.
func unsafe(r rune, keepLines bool) bool {
	switch {
	case keepLines && (r == '\n' || r == '\t'):
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r == 0x061c, r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e,
		r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
		return true
	}
	return false
}

// asciiEscape writes an ASCII control character as Go's %q does.
func asciiEscape(c byte) string {
	switch c {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	return fmt.Sprintf(`\x%02x`, c)
}
