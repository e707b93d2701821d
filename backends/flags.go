package backends

import "strings"

// flagString joins arguments into the one string CMAKE_<LANG>_FLAGS holds.
// CMake splits that string like a POSIX shell (separate_arguments
// UNIX_COMMAND while it identifies the compiler) and the Ninja generator
// pastes it into a command that /bin/sh runs, so an argument with a space
// (ROCM_PATH="/opt/ROCm 6") or a shell character is single-quoted, with
// each ' written as '\”. Plain arguments stay as they are, so the usual
// define, a configure input, does not change.
func flagString(args ...string) string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = shellWord(a)
	}
	return strings.Join(out, " ")
}

func shellWord(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool { return !plainRune(r) }) < 0 {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		if strings.ContainsRune("\\\"$`", r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// plainRune is a character that no shell or CMake treats specially.
func plainRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_@%+=:,./-", r)
}
