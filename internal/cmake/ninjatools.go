package cmake

import (
	"fmt"
	"strconv"
	"strings"
)

// The readers below take the output of Ninja's query tools (Ninja 1.11),
// which the no-work record lists the nodes of a graph with. Each refuses
// what it cannot read exactly; the record is then not made.

// parseTargetsAll reads `ninja -t targets all`: "path: rule" for every
// output of every edge, the path as written in the manifest.
func parseTargetsAll(out []byte) ([]string, error) {
	lines, err := toolLines(out, "ninja -t targets all")
	if err != nil {
		return nil, err
	}
	var paths []string
	for i, line := range lines {
		path, rule, ok := cutLast(line, ": ")
		if !ok || path == "" || rule == "" || strings.ContainsAny(rule, " :") {
			return nil, fmt.Errorf("ninja -t targets all, line %d: %q is not \"path: rule\"", i+1, line)
		}
		paths = append(paths, path)
	}
	return paths, nil
}

// parseInputs reads `ninja -t inputs`: one path a line, shell-quoted by
// Ninja when it holds a character outside [A-Za-z0-9_+-./].
func parseInputs(out []byte) ([]string, error) {
	lines, err := toolLines(out, "ninja -t inputs")
	if err != nil {
		return nil, err
	}
	var paths []string
	for i, line := range lines {
		p, err := ninjaUnquote(line)
		if err != nil {
			return nil, fmt.Errorf("ninja -t inputs, line %d: %w", i+1, err)
		}
		paths = append(paths, p)
	}
	return paths, nil
}

// ninjaUnquote undoes Ninja's GetShellEscapedString: a string in single
// quotes, each quote inside written as '\”.
func ninjaUnquote(s string) (string, error) {
	if s == "" {
		return "", fmt.Errorf("an empty path")
	}
	if s[0] != '\'' {
		for i := 0; i < len(s); i++ {
			if !shellSafe(s[i]) {
				return "", fmt.Errorf("%q is neither plain nor quoted", s)
			}
		}
		return s, nil
	}
	if len(s) < 2 || s[len(s)-1] != '\'' {
		return "", fmt.Errorf("%q lacks its closing quote", s)
	}
	body := s[1 : len(s)-1]
	var b strings.Builder
	for len(body) > 0 {
		i := strings.IndexByte(body, '\'')
		if i < 0 {
			b.WriteString(body)
			break
		}
		if !strings.HasPrefix(body[i:], `'\''`) {
			return "", fmt.Errorf("%q has a bare quote", s)
		}
		b.WriteString(body[:i])
		b.WriteByte('\'')
		body = body[i+4:]
	}
	return b.String(), nil
}

// parseDeps reads `ninja -t deps`: for each output in the deps log a line
// "path: #deps N, deps mtime T (VALID|STALE)", then N lines of four spaces
// and a path, then a blank line. It returns every dependency path.
func parseDeps(out []byte) ([]string, error) {
	lines, err := toolLines(out, "ninja -t deps")
	if err != nil {
		return nil, err
	}
	var paths []string
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		_, head, ok := cutLast(line, ": #deps ")
		if !ok {
			return nil, fmt.Errorf("ninja -t deps, line %d: %q is not an output's deps line", i+1, line)
		}
		count, rest, ok := strings.Cut(head, ", deps mtime ")
		n, err := strconv.Atoi(count)
		if !ok || err != nil || n < 0 || !(strings.HasSuffix(rest, " (VALID)") || strings.HasSuffix(rest, " (STALE)")) {
			return nil, fmt.Errorf("ninja -t deps, line %d: %q is not an output's deps line", i+1, line)
		}
		if n > len(lines)-i-1 {
			return nil, fmt.Errorf("ninja -t deps, line %d: %d deps announced, %d lines follow", i+1, n, len(lines)-i-1)
		}
		for _, dep := range lines[i+1 : i+1+n] {
			p, ok := strings.CutPrefix(dep, "    ")
			if !ok || p == "" {
				return nil, fmt.Errorf("ninja -t deps, line %d: %q is not a dependency line", i+1, dep)
			}
			paths = append(paths, p)
		}
		i += n
		if i+1 < len(lines) && lines[i+1] != "" {
			return nil, fmt.Errorf("ninja -t deps, line %d: more dependency lines than the %d announced", i+2, n)
		}
	}
	return paths, nil
}

// toolLines splits a tool's output into lines; the last must end with a
// newline, as Ninja ends every one (a torn output does not).
func toolLines(out []byte, tool string) ([]string, error) {
	s := string(out)
	if s == "" {
		return nil, nil
	}
	if !strings.HasSuffix(s, "\n") {
		return nil, fmt.Errorf("%s: the output ends inside a line", tool)
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n"), nil
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, ok bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}

// shellSafe is Ninja's IsKnownShellSafeCharacter: what it prints unquoted.
func shellSafe(c byte) bool {
	return 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || strings.IndexByte("_+-./", c) >= 0
}
