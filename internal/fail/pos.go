package fail

import "strconv"

// Pos is a place in a user's file, rendered the one way every message and
// report uses: "file:line:col", "file:line" when the column is unknown,
// "file" for the whole file. Line and Col are 1-based; zero means unknown.
type Pos struct {
	File      string
	Line, Col int
}

func (p Pos) String() string {
	s := p.File
	if p.Line <= 0 {
		return s
	}
	s += ":" + strconv.Itoa(p.Line)
	if p.Col > 0 {
		s += ":" + strconv.Itoa(p.Col)
	}
	return s
}
