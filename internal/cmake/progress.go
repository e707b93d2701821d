package cmake

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// statusPrefix is put in front of every line Ninja prints for an edge
// (through NINJA_STATUS), so status lines cannot be confused with compiler
// output that happens to start with "[".
const statusPrefix = "[mlxbuild "

// ninjaStatus is the NINJA_STATUS value: finished and total edges.
const ninjaStatus = statusPrefix + "%f/%t] "

// Step is one edge Ninja ran.
type Step struct {
	Kind    string // "CXX", "HIP", "CUDA", "C", "LINK", or "" for other edges
	Output  string // what the edge built, relative to the build directory
	Display string // the short form shown in progress: "HIP mlx/backend/rocm/unary.hip"
}

var (
	statusRe   = lazyregexp.New(`^\[mlxbuild (\d+)/(\d+)\] (.*)$`)
	compileRe  = lazyregexp.New(`^Building (\w+) object (.+)$`)
	linkStepRe = lazyregexp.New(`^Linking (\w+) (?:static library|shared library|executable|shared module) (.+)$`)
	objDirRe   = lazyregexp.New(`^(.*?)CMakeFiles/[^/]+\.dir/(.+?)\.(?:o|obj)$`)
)

// parseStep reads Ninja's description of an edge (CMake's wording).
func parseStep(desc string) Step {
	if m := compileRe.FindStringSubmatch(desc); m != nil {
		src := m[2]
		if o := objDirRe.FindStringSubmatch(m[2]); o != nil {
			src = o[1] + o[2]
		}
		return Step{Kind: m[1], Output: m[2], Display: m[1] + " " + src}
	}
	if m := linkStepRe.FindStringSubmatch(desc); m != nil {
		return Step{Kind: "LINK", Output: m[2], Display: "LINK " + m[2]}
	}
	return Step{Display: desc}
}

// progress consumes Ninja's output: every byte goes to the log; status lines
// are parsed into steps and shown on out. Stdout and stderr both write here
// from their own goroutines, hence the lock.
type progress struct {
	mu       sync.Mutex
	log      io.Writer
	out      io.Writer
	tty      bool
	width    int
	partial  []byte
	steps    []Step
	finished int
	total    int
	shown    bool // a TTY line is on screen and needs a newline at the end
}

// newProgress shows progress on out, one updating line of at most
// columns-1 characters when tty (the last column would wrap on some
// terminals).
func newProgress(log, out io.Writer, tty bool, columns int) *progress {
	if columns <= 20 {
		columns = 80
	}
	return &progress{log: log, out: out, tty: tty, width: columns - 1}
}

func (p *progress) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, err := p.log.Write(b); err != nil {
		return 0, err
	}
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		p.line(strings.TrimRight(string(p.partial[:i]), "\r"))
		p.partial = p.partial[i+1:]
	}
	return len(b), nil
}

func (p *progress) line(l string) {
	m := statusRe.FindStringSubmatch(l)
	if m == nil {
		return
	}
	p.finished, _ = strconv.Atoi(m[1])
	p.total, _ = strconv.Atoi(m[2])
	st := parseStep(m[3])
	p.steps = append(p.steps, st)
	if p.out == nil {
		return
	}
	text := fmt.Sprintf("[%d/%d] %s", p.finished, p.total, st.Display)
	if p.tty {
		text = shorten(text, p.width)
		fmt.Fprintf(p.out, "\r\x1b[K%s", text)
		p.shown = true
		return
	}
	fmt.Fprintln(p.out, text)
}

// finish ends the TTY line so what follows starts on its own line.
func (p *progress) finish() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.partial) > 0 {
		p.line(string(p.partial))
		p.partial = nil
	}
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
		return text[:width-3] + "..."
	}
	return head + "..." + text[len(text)-keep:]
}
