package ui

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	for in, want := range map[string]string{
		"llama-3.1-8b":                      "llama-3.1-8b",
		"Qwen3 ü 模型 \\ path":                "Qwen3 ü 模型 \\ path",
		"\x1b[31mred\x1b[0m":                `\x1b[31mred\x1b[0m`,
		"a\nFAIL  forged line":              `a\nFAIL  forged line`,
		"tab\there\r\x00\x7f":               `tab\there\r\x00\x7f`,
		"c1 \u009b31m":                      `c1 \u009b31m`,
		"rtl \u202egpj.exe":                 `rtl \u202egpj.exe`,
		"bad \xff\xfe utf8, real \ufffd ok": `bad \xff\xfe utf8, real ` + "\ufffd" + ` ok`,
		"\x1b]8;;http://x\x07link":          `\x1b]8;;http://x\alink`,
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
	if got := EscapeLines("one\n\ttwo \x1b[2J"); got != "one\n\ttwo \\x1b[2J" {
		t.Errorf("EscapeLines = %q", got)
	}
}

// FuzzEscape: whatever the input, the output holds no byte a terminal
// acts on and no line break (EscapeLines: none but \n and \t), is valid
// UTF-8, and is the input itself when nothing needed escaping.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31m", "a\nb", "\xff", "\u202e", "\u2028", "\\x1b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, keep := range []bool{false, true} {
			out := escape(s, keep)
			if !utf8.ValidString(out) {
				t.Fatalf("escape(%q, %v) = %q: not UTF-8", s, keep, out)
			}
			for _, r := range out {
				if unsafe(r, keep) {
					t.Fatalf("escape(%q, %v) = %q holds %U", s, keep, out, r)
				}
			}
			if utf8.ValidString(s) && strings.IndexFunc(s, func(r rune) bool { return unsafe(r, keep) }) < 0 && out != s {
				t.Fatalf("escape(%q, %v) = %q changed safe text", s, keep, out)
			}
		}
	})
}
