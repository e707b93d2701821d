package cmake

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"unicode/utf8"

	"golang.org/x/term"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// Step is one edge Ninja ran.
type Step struct {
	Kind    string // "CXX", "HIP", "CUDA", "C", "LINK", or "" for other edges
	Output  string // what the edge built, relative to the build directory
	Display string // the short form shown in progress: "HIP mlx/backend/rocm/unary.hip"
}

var (
	compileRe  = lazyregexp.New(`^Building (\w+) object (.+)$`)
	linkStepRe = lazyregexp.New(`^Linking (\w+) (?:static library|shared library|executable|shared module) (.+)$`)
	objDirRe   = lazyregexp.New(`^(.*?)CMakeFiles/([^/]+)\.dir/(.+?)\.(?:o|obj)$`)
	// depSrcRe finds a dependency's unpacked source in the store
	// (<cache>/deps/src/<sha256>/...): CMake names the object of a source
	// outside the tree by its whole path, which would fill the line, so
	// the step is shown as the target's and the path inside the source.
	depSrcRe = lazyregexp.New(`(?:^|/)deps/src/[0-9a-f]{64}/(.+)$`)
)

// regenerates reports CMake's own edge, which re-runs the configure when an
// input of it changed: a configure, not a build step.
func regenerates(s Step) bool {
	return s.Kind == "" && strings.HasPrefix(s.Display, "Re-running CMake")
}

// parseStep reads Ninja's description of an edge (CMake's wording).
func parseStep(desc string) Step {
	if m := compileRe.FindStringSubmatch(desc); m != nil {
		src := m[2]
		if o := objDirRe.FindStringSubmatch(m[2]); o != nil {
			src = o[1] + o[3]
			if d := depSrcRe.FindStringSubmatch(o[3]); d != nil {
				src = o[2] + "/" + d[1] // the target that compiles it: gguflib/fp16.c
			}
		}
		return Step{Kind: m[1], Output: m[2], Display: m[1] + " " + src}
	}
	if m := linkStepRe.FindStringSubmatch(desc); m != nil {
		return Step{Kind: "LINK", Output: m[2], Display: "LINK " + m[2]}
	}
	return Step{Display: desc}
}

// progress consumes Ninja's output, from a pipe or a terminal (termLines
// cleans it into lines): every line goes to the log; status lines are
// followed into the edges that run and finish, and shown on out. On a TTY
// the one updating line names an edge that runs now: the one that started
// last of those still running, with how many run in all (so each edge is
// named at least once, when it starts, and a long compile is named again
// whenever the shorter ones beside it finish).
// Elsewhere each finished edge is one plain line. Stdout and stderr may
// both write here from their own goroutines, hence the lock.
type progress struct {
	mu       sync.Mutex
	log      io.Writer
	out      io.Writer
	tty      bool
	columns  func() int
	lines    termLines
	text     strings.Builder // what went to the log after its header: what diagnostics are read from
	err      error           // the first failed log write
	running  runningEdges
	steps    []Step // finished edges, in order
	finished int
	total    int
	shown    bool // a TTY line is on screen and needs a newline at the end
	// dirs are folders whose absolute paths a custom command's own
	// wording may print ("Compiling HIP source /.../tree/mlx/x.hip"):
	// shown relative, as CMake's own steps are.
	dirs []string
}

// shorten drops each of p.dirs from the paths in desc.
func (p *progress) shorten(desc string) string {
	for _, d := range p.dirs {
		if d != "" {
			desc = strings.ReplaceAll(desc, strings.TrimSuffix(d, "/")+"/", "")
		}
	}
	return desc
}

// newProgress shows progress on out, one updating line of at most
// columns-1 characters when tty (the last column would wrap on some
// terminals).
func newProgress(log, out io.Writer, tty bool, columns int) *progress {
	return &progress{log: log, out: out, tty: tty, columns: func() int { return columns }}
}

// liveColumns is the width of w when it is a terminal, read again at each
// redraw so a resized window is followed; fallback where it cannot be read.
func liveColumns(w io.Writer, fallback int) func() int {
	f, ok := w.(*os.File)
	if !ok {
		return func() int { return fallback }
	}
	return func() int {
		if cols, _, err := term.GetSize(int(f.Fd())); err == nil {
			return cols
		}
		return fallback
	}
}

func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines.write(b, p.line)
	if p.err != nil {
		return 0, p.err
	}
	return len(b), nil
}

func (p *progress) line(l string, end lineEnd) {
	if end != endStream {
		l += "\n"
	}
	p.text.WriteString(l)
	if _, err := io.WriteString(p.log, l); err != nil && p.err == nil {
		p.err = err
	}
	st, ok := parseStatus(strings.TrimSuffix(l, "\n"))
	if !ok {
		return
	}
	if st.step.Kind == "" {
		st.step.Display = p.shorten(st.step.Display)
	}
	p.finished, p.total = st.finished, st.total
	p.running = p.running.update(st)
	if !st.starts() {
		p.steps = append(p.steps, st.step)
	}
	switch {
	case p.out == nil:
	case p.tty:
		p.draw(st.step)
	case !st.starts():
		fmt.Fprintf(p.out, "[%d/%d] %s\n", st.finished, st.total, st.step.Display)
	}
}

// draw redraws the TTY line: the last-started running edge, or the one
// that just finished when none runs (on a pipe Ninja shows no starts).
func (p *progress) draw(last Step) {
	shown, head := last, fmt.Sprintf("[%d/%d] ", p.finished, p.total)
	if n := len(p.running); n > 0 {
		shown = p.running[n-1]
		if n > 1 {
			head = fmt.Sprintf("[%d/%d, %d running] ", p.finished, p.total, n)
		}
	}
	columns := p.columns()
	if columns <= 20 {
		columns = 80
	}
	fmt.Fprintf(p.out, "\r\x1b[K%s", shorten(head+shown.Display, columns-1))
	p.shown = true
}

// finishLine passes on a last line Ninja left without its newline, so
// what is written next to the log starts a line of its own.
func (p *progress) finishLine() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines.flush(p.line)
}

// finish ends the TTY line so what follows starts on its own line.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.lines.flush(p.line)
	if p.shown && p.out != nil {
		fmt.Fprintln(p.out)
		p.shown = false
	}
}

// shorten fits a progress line into width columns by cutting the middle of
// the path, keeping "[N/M] KIND " and the file name, which say the most.
func shorten(text string, width int) string {
	if len(text) <= width {
		return text
	}
	head := ""
	if i := strings.Index(text, "] "); i >= 0 {
		if j := strings.IndexByte(text[i+2:], ' '); j >= 0 {
			head = text[:i+2+j+1]
		}
	}
	keep := width - len(head) - 3
	if keep < 8 {
		return strings.ToValidUTF8(text[:width-3], "") + "..."
	}
	// Cut at a character's start, never inside one (a path may hold any).
	cut := len(text) - keep
	for cut < len(text) && !utf8.RuneStart(text[cut]) {
		cut++
	}
	return head + "..." + text[cut:]
}
