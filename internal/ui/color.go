package ui

// Color is an SGR escape sequence. mlxbuild needs five; writing them here
// beats a dependency whose terminal detection we do not use.
type Color string

const (
	Green   Color = "\x1b[32m"
	Red     Color = "\x1b[31m"
	BoldRed Color = "\x1b[1;31m"
	Yellow  Color = "\x1b[33m"
	Cyan    Color = "\x1b[36m"
	reset         = "\x1b[0m"
)

// Paint wraps s in c when on, and returns s as it is otherwise.
func Paint(on bool, c Color, s string) string {
	if !on {
		return s
	}
	return string(c) + s + reset
}
