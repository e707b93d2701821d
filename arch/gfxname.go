package arch

import "strings"

// isGfxProcessor reports whether s is a concrete processor name:
// "gfx", a major version of one or two decimal digits (no leading zero),
// then minor and stepping as one hex digit each, the way KFD's
// gfx_target_version is printed (9.0.10 is gfx90a). It is the regular
// expression ^gfx[1-9][0-9]?[0-9a-f][0-9a-f]$ written out: every build
// validates its architectures, and compiling the expression cost each run
// more than the rest of the check (FuzzGfxNames holds the two equal).
func isGfxProcessor(s string) bool {
	rest, ok := strings.CutPrefix(s, "gfx")
	if !ok || (len(rest) != 3 && len(rest) != 4) || !(rest[0] >= '1' && rest[0] <= '9') {
		return false
	}
	if len(rest) == 4 && !isDecimal(rest[1]) {
		return false
	}
	return isLowerHex(rest[len(rest)-2]) && isLowerHex(rest[len(rest)-1])
}

// isGfxGeneric reports whether s is a generic target such as gfx9-generic
// or gfx10-3-generic: ^gfx[1-9][0-9]?(-[0-9])?-generic$ written out.
func isGfxGeneric(s string) bool {
	rest, ok := strings.CutPrefix(s, "gfx")
	if !ok {
		return false
	}
	if rest, ok = strings.CutSuffix(rest, "-generic"); !ok || rest == "" || !(rest[0] >= '1' && rest[0] <= '9') {
		return false
	}
	rest = rest[1:]
	if rest != "" && isDecimal(rest[0]) {
		rest = rest[1:]
	}
	return rest == "" || len(rest) == 2 && rest[0] == '-' && isDecimal(rest[1])
}

func isDecimal(c byte) bool  { return c >= '0' && c <= '9' }
func isLowerHex(c byte) bool { return isDecimal(c) || c >= 'a' && c <= 'f' }
