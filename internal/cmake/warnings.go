package cmake

import (
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// cmakeWarningRe matches the head of a warning block that a CMake file
// raised ("CMake Warning at f:12 (message):", a fork's message(WARNING)).
// CMake's own warnings without a place ("CMake Warning:", such as the
// defines a project does not use, which every spec passes) and developer
// warnings ("CMake Warning (dev)", for a project's authors) stay in the log.
var cmakeWarningRe = lazyregexp.New(`^CMake Warning at (.+?):(\d+) \((\w+)\):\s*(.*)$`)

// ConfigureWarnings returns the warnings of a configure's output in order,
// each once, as file:line (a relative file made absolute against source)
// and the first sentence of its text: a
// configure that succeeds leaves them in its log, where nobody reads them.
func ConfigureWarnings(out, source string) []Diagnostic {
	var ws []Diagnostic
	seen := map[string]bool{}
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		m := cmakeWarningRe.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		// The first paragraph only: the rest of a fork's warning is
		// detail for the log.
		var first string
		if paras := messageParagraphs(m[4], lines[i+1:]); len(paras) > 0 {
			first = paras[0]
		}
		d := Diagnostic{Message: firstSentence(first)}
		if d.Message == "" {
			d.Message = "(no text)"
		}
		d.place(m[1], m[2], source)
		if k := d.located(); !seen[k] {
			seen[k] = true
			ws = append(ws, d)
		}
	}
	return ws
}

// firstSentence is text up to and including its first full stop that ends
// a sentence (". " or the end), so a warning stays one terse line.
func firstSentence(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	if i := strings.Index(text, ". "); i >= 0 {
		return text[:i+1]
	}
	return text
}
