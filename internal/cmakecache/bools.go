package cmakecache

import "strings"

// Bool reads v as CMake reads a boolean constant (case-insensitively): ON,
// TRUE, YES, Y and 1 are true; OFF, FALSE, NO, N, 0, IGNORE, NOTFOUND, the
// empty string and anything ending in -NOTFOUND are false. ok is false for
// anything else (a path, a list), which is no boolean.
func Bool(v string) (on, ok bool) {
	switch u := strings.ToUpper(v); u {
	case "ON", "TRUE", "YES", "Y", "1":
		return true, true
	case "OFF", "FALSE", "NO", "N", "0", "IGNORE", "NOTFOUND", "":
		return false, true
	default:
		return false, strings.HasSuffix(u, "-NOTFOUND")
	}
}

// Same reports whether a cache holding have holds what was set as want:
// the same text, or, when both are boolean constants, the same truth (a
// project may turn -DX=ON into X:BOOL=TRUE).
func Same(want, have string) bool {
	if want == have {
		return true
	}
	w, wok := Bool(want)
	h, hok := Bool(have)
	return wok && hok && w == h
}

// On reports whether the entry named name is set to a true constant.
func (c *Cache) On(name string) bool {
	e, ok := c.Get(name)
	if !ok {
		return false
	}
	on, isBool := Bool(e.Value)
	return isBool && on
}
