package shellwords

import (
	"fmt"
	"strings"
)

// Commands splits a command line that Ninja hands to /bin/sh into the
// argument vectors of its simple commands. CMake's Ninja generator writes a
// custom command as `cd DIR && PROG ARG... [&& PROG ARG...]`, quoting an
// argument that needs it in double quotes with \ before " \ $ and `; without
// VERBATIM, a project may also write single quotes or backslashes itself.
// Those are read exactly as sh reads them. Commands are separated by "&&",
// ";" or a line break (sh runs each only after the one before).
//
// Anything whose meaning sh decides at run time is refused, not guessed: an
// unquoted or double-quoted $ or ` (expansions), unquoted glob characters,
// a ~ or # that starts a word, and the operators | || & < > ( ). Such a
// command's arguments are not a fixed list, so no compile database entry can
// hold them.
func Commands(line string) ([][]string, error) {
	var (
		cmds   [][]string
		cur    []string
		word   strings.Builder
		inWord bool // a word has started (quotes make an empty word)
	)
	endWord := func() {
		if inWord {
			cur = append(cur, word.String())
			word.Reset()
			inWord = false
		}
	}
	endCommand := func(at int, sep string) error {
		endWord()
		if len(cur) == 0 {
			return fmt.Errorf("%q at byte %d has no command before it", sep, at)
		}
		cmds = append(cmds, cur)
		cur = nil
		return nil
	}
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			endWord()
		case c == '\n':
			endWord()
			if len(cur) > 0 { // blank lines are no command
				cmds, cur = append(cmds, cur), nil
			}
		case c == ';':
			if err := endCommand(i, ";"); err != nil {
				return nil, err
			}
		case c == '&':
			if i+1 < len(line) && line[i+1] == '&' {
				if err := endCommand(i, "&&"); err != nil {
					return nil, err
				}
				i++
				continue
			}
			return nil, fmt.Errorf("unquoted & at byte %d (a background job) is not a fixed command", i)
		case strings.IndexByte("|<>()", c) >= 0:
			return nil, fmt.Errorf("unquoted %c at byte %d (a pipe, redirection or subshell) is not a fixed command", c, i)
		case c == '$' || c == '`':
			return nil, fmt.Errorf("unquoted %c at byte %d expands when the command runs", c, i)
		case strings.IndexByte("*?[", c) >= 0:
			return nil, fmt.Errorf("unquoted %c at byte %d is a file name pattern", c, i)
		case (c == '~' || c == '#') && !inWord:
			return nil, fmt.Errorf("unquoted %c at byte %d starts a word that sh rewrites", c, i)
		case c == '\\':
			inWord = true
			if i+1 == len(line) {
				return nil, fmt.Errorf("the command ends in a backslash")
			}
			i++
			if line[i] != '\n' { // backslash-newline joins lines
				word.WriteByte(line[i])
			}
		case c == '\'':
			inWord = true
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("the single quote at byte %d is never closed", i)
			}
			word.WriteString(line[i+1 : i+1+end])
			i += 1 + end
		case c == '"':
			inWord = true
			j, err := doubleQuoted(line, i+1, &word)
			if err != nil {
				return nil, err
			}
			i = j
		default:
			inWord = true
			word.WriteByte(c)
		}
	}
	endWord()
	if len(cur) > 0 {
		cmds = append(cmds, cur)
	}
	return cmds, nil
}

// doubleQuoted reads a "..." word part starting after its opening quote
// into w and returns the index of the closing quote. Inside, a backslash
// escapes only $ ` " \ and a line break (which it removes), as in sh.
func doubleQuoted(line string, i int, w *strings.Builder) (int, error) {
	open := i - 1
	for ; i < len(line); i++ {
		switch c := line[i]; c {
		case '"':
			return i, nil
		case '$', '`':
			return 0, fmt.Errorf("%c inside the double quotes at byte %d expands when the command runs", c, i)
		case '\\':
			if i+1 < len(line) && strings.IndexByte("$`\"\\\n", line[i+1]) >= 0 {
				i++
				if line[i] != '\n' {
					w.WriteByte(line[i])
				}
				continue
			}
			w.WriteByte(c)
		default:
			w.WriteByte(c)
		}
	}
	return 0, fmt.Errorf("the double quote at byte %d is never closed", open)
}
