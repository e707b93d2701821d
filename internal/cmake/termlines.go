package cmake

import "bytes"

// Ninja on a terminal ("smart terminal": stdout a TTY, TERM not dumb)
// draws one status line that it redraws in place: "\r" + status + "\x1b[K"
// (erase to the end of the line), and starts its other output with "\n".
// On a pipe it prints plain lines. termLines turns either stream into the
// lines a log holds and a parser reads: each redrawn status becomes a line
// of its own, escape sequences (the erase, a compiler's colours, Ninja's
// red "FAILED: ") are dropped, every other byte is kept as written. A
// stream with neither "\r" nor ESC comes out byte for byte.

// lineEnd says how a line ended.
type lineEnd int

const (
	endNewline lineEnd = iota // "\n"
	endRedraw                 // "\r" or "\x1b[K": the terminal would draw over it
	endStream                 // the output ended without a newline
)

// eraseLine is the escape sequence Ninja ends every status line with.
var eraseLine = []byte("\x1b[K")

type termLines struct {
	partial []byte
	scanned int // bytes of partial already searched for a line end
	// redrawn: the last line ended by a redraw and was logged as a line,
	// so the "\n" that Ninja prints right after belongs to it.
	redrawn bool
}

// write feeds b; emit gets each complete line, cleaned, and how it ended.
// The lines are the same however the stream is split into writes.
func (s *termLines) write(b []byte, emit func(line string, end lineEnd)) {
	s.partial = append(s.partial, b...)
	start := 0
	for i := s.scanned; i < len(s.partial); i++ {
		n, end := 0, endNewline
		switch c := s.partial[i]; {
		case c == '\n':
			n = 1
		case c == '\r':
			n, end = 1, endRedraw
		case c == 0x1b:
			rest := s.partial[i:]
			if len(rest) < len(eraseLine) && bytes.HasPrefix(eraseLine, rest) {
				// Maybe the erase, split by the write: wait for the rest.
				s.keep(start, i)
				return
			}
			if bytes.HasPrefix(rest, eraseLine) {
				n, end = len(eraseLine), endRedraw
			}
		}
		if n == 0 {
			continue
		}
		s.line(s.partial[start:i], end, emit)
		start = i + n
		i += n - 1
	}
	s.keep(start, len(s.partial))
}

// keep drops the emitted bytes before start; scanning resumes at from.
func (s *termLines) keep(start, from int) {
	s.partial = append(s.partial[:0], s.partial[start:]...)
	s.scanned = from - start
}

// flush emits what is left after the last line end.
func (s *termLines) flush(emit func(line string, end lineEnd)) {
	if len(s.partial) > 0 {
		s.line(s.partial, endStream, emit)
	}
	s.partial, s.scanned = nil, 0
}

func (s *termLines) line(raw []byte, end lineEnd, emit func(string, lineEnd)) {
	text := stripEscapes(raw)
	switch {
	case end == endRedraw && text == "":
		return // "\r" before a redraw, or an erase after one: nothing to log
	case end == endNewline && text == "" && s.redrawn:
		s.redrawn = false // the newline that ends a redrawn status line
		return
	}
	s.redrawn = end == endRedraw
	emit(text, end)
}

// stripEscapes drops terminal escape sequences: CSI (ESC [ ... final byte),
// OSC (ESC ] ... BEL or ESC \), and any other ESC with the byte after it.
// A sequence cut off by the line's end is dropped to the end.
func stripEscapes(b []byte) string {
	if bytes.IndexByte(b, 0x1b) < 0 {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != 0x1b {
			out = append(out, b[i])
			continue
		}
		i++
		if i >= len(b) {
			break
		}
		switch b[i] {
		case '[':
			for i++; i < len(b) && b[i] >= 0x20 && b[i] <= 0x3f; i++ {
			}
			if i < len(b) && (b[i] < 0x40 || b[i] > 0x7e) {
				i-- // not a final byte: a malformed sequence ends before it
			}
		case ']':
			for i++; i < len(b) && b[i] != 0x07 && !(b[i] == '\\' && b[i-1] == 0x1b); i++ {
			}
		}
	}
	return string(out)
}
