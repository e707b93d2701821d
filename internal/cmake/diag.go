package cmake

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// Diagnostic is one compiler or tool error found in a build log.
type Diagnostic struct {
	File    string // as the compiler printed it (CMake passes absolute paths)
	Line    int    // 1-based; 0 when the tool gave none
	Col     int    // 1-based; 0 when the tool gave none
	Message string // the text after "error: "
	// Via are the places the compiler names around the error: gcc's
	// "required from" chain before it (a template or constructor
	// instantiated from user code) and the notes after it (clang's
	// "in instantiation of ... requested here", "declared here"), in the
	// order printed. An error inside a system header is the user's at the
	// first of them that is the user's file.
	Via []fail.Pos
}

// String renders d as file:line:col: error: message, leaving out what is unknown.
func (d Diagnostic) String() string {
	var b strings.Builder
	if d.File != "" {
		b.WriteString(fail.Pos{File: d.File, Line: d.Line, Col: d.Col}.String() + ": ")
	}
	b.WriteString("error: ")
	b.WriteString(d.Message)
	return b.String()
}

var (
	// gccRe matches gcc and clang: "file:12:5: error: msg", "file:3: fatal error: msg".
	gccRe = lazyregexp.New(`^(\S.*?):(\d+):(?:(\d+):)? (?:fatal )?error: (.*)$`)
	// nvccRe matches nvcc's front end: "file.cu(12): error: msg".
	nvccRe = lazyregexp.New(`^(\S.*?)\((\d+)\): (?:catastrophic )?error: (.*)$`)
	// linkRe matches ld's "undefined reference" and similar, located by object.
	linkRe = lazyregexp.New(`(undefined reference to .*|multiple definition of .*|cannot find -l\S+)$`)
	// toolRe matches a program's own error, the program named by any
	// path and version: "clang++-21: error: msg", "g++-12: error: msg",
	// "/usr/bin/hipcc: error: msg", "ninja: error: msg",
	// "collect2: error: msg", "cc1plus: fatal error: msg".
	toolRe = lazyregexp.New(`^(?:\S*/)?[A-Za-z_][\w.+]*(?:-[\w.+]+)*: (?:fatal )?error: (.*)$`)
	// requiredRe matches gcc's instantiation context before an error:
	// "file:12:5:   required from here", "file:3:7:   required by ...".
	requiredRe = lazyregexp.New(`^(\S.*?):(\d+):(?:(\d+):)?\s+required (?:from|by)\b`)
	// noteRe matches a note after an error: "file:12:5: note: msg".
	noteRe = lazyregexp.New(`^(\S.*?):(\d+):(?:(\d+):)? note: `)
	// warningRe matches a warning of gcc or clang: "file:12:5: warning: msg".
	warningRe = lazyregexp.New(`^\S.*?:\d+:(?:\d+:)? warning: `)
	// contextRe matches the header gcc prints before a diagnostic's
	// "required from" chain or its first line: "file: In instantiation of
	// ‘...’:", "file: In member function ‘...’:", "file: In constructor
	// ‘...’:", "file: At global scope:".
	contextRe = lazyregexp.New(`^\S.*?: (?:In (?:[a-z]+ )*(?:function|constructor|destructor|instantiation|substitution)\b|At global scope:)`)
)

// ParseDiagnostics returns the errors in a build log in order, each once.
// Compiler errors come with file:line; a linker error or a tool's own
// failure ("ninja: error: ...") is kept with what it names.
func ParseDiagnostics(log string) []Diagnostic {
	var out []Diagnostic
	seen := map[string]int{}
	var required []fail.Pos // gcc's context lines waiting for their error
	last := -1              // the error the notes that follow belong to
	add := func(d Diagnostic) {
		d.Via, required = required, nil
		k := d.String()
		if i, ok := seen[k]; ok {
			last = i
			return
		}
		seen[k] = len(out)
		last = len(out)
		out = append(out, d)
	}
	pos := func(m []string) fail.Pos {
		l, _ := strconv.Atoi(m[2])
		c, _ := strconv.Atoi(m[3])
		return fail.Pos{File: m[1], Line: l, Col: c}
	}
	for _, line := range strings.Split(log, "\n") {
		line = strings.TrimRight(line, "\r")
		if m := gccRe.FindStringSubmatch(line); m != nil && !strings.HasPrefix(m[1], "/usr/bin/ld") {
			at := pos(m)
			add(Diagnostic{File: at.File, Line: at.Line, Col: at.Col, Message: m[4]})
			continue
		}
		// A warning ends the diagnostic before it and takes the
		// "required from" chain printed for it, and the notes after it
		// are its own; a context header starts the next diagnostic's
		// chain. Neither is an error's.
		if warningRe.MatchString(line) || contextRe.MatchString(line) {
			last, required = -1, nil
			continue
		}
		if m := requiredRe.FindStringSubmatch(line); m != nil {
			required = append(required, pos(m))
			continue
		}
		if m := noteRe.FindStringSubmatch(line); m != nil {
			if last >= 0 && !slices.Contains(out[last].Via, pos(m)) {
				out[last].Via = append(out[last].Via, pos(m))
			}
			continue
		}
		if strings.HasPrefix(line, "FAILED: ") || strings.HasPrefix(line, "[") {
			last, required = -1, nil // another command's output starts
		}
		if m := nvccRe.FindStringSubmatch(line); m != nil {
			l, _ := strconv.Atoi(m[2])
			add(Diagnostic{File: m[1], Line: l, Message: m[3]})
			continue
		}
		if m := linkRe.FindStringSubmatch(line); m != nil {
			add(Diagnostic{Message: strings.TrimSpace(line)})
			continue
		}
		if m := toolRe.FindStringSubmatch(line); m != nil {
			add(Diagnostic{Message: m[1]})
		}
	}
	return out
}

// cmakeErrorRe matches the head of CMake's error blocks:
// "CMake Error at CMakeLists.txt:47 (message):" or "CMake Error: msg".
var cmakeErrorRe = lazyregexp.New(`^CMake Error(?: at (.+?):(\d+) \((\w+)\))?:\s*(.*)$`)

// located renders a CMake error as CMake locates it, "file:line: text",
// or the text alone when CMake named no file.
func (d Diagnostic) located() string {
	if d.File == "" {
		return d.Message
	}
	return fmt.Sprintf("%s:%d: %s", d.File, d.Line, d.Message)
}

// cmakeError returns CMake's first error: its text joined from the
// indented lines that follow, and the file and line CMake gave (a relative
// file made absolute against source; none for "CMake Error: ..."); ok is
// false when the output holds no error.
//
// others are more directories a relative file may be under: CMake names a
// FetchContent sub-build's file relative to <build>/_deps
// ("json-subbuild/...download-json-populate.cmake"), not to the source.
func cmakeError(out, source string, others ...string) (Diagnostic, bool) {
	lines := strings.Split(out, "\n")
	for i, line := range lines {
		m := cmakeErrorRe.FindStringSubmatch(strings.TrimRight(line, "\r"))
		if m == nil {
			continue
		}
		d := Diagnostic{Message: strings.Join(messageParagraphs(m[4], lines[i+1:]), "\n  ")}
		if m[1] != "" {
			d.place(m[1], m[2], source, others...)
		}
		return d, true
	}
	return Diagnostic{}, false
}

// messageParagraphs is the text of a CMake message: head (the text on its
// head line, after the colon) and the lines after it. CMake indents a
// message's lines and separates its paragraphs with blank lines
// (find_package's hints come after one): every indented paragraph until
// the first line that is not, each joined into one line.
func messageParagraphs(head string, after []string) []string {
	var paras, cur []string
	if s := strings.TrimSpace(head); s != "" {
		cur = append(cur, s)
	}
	for _, l := range after {
		l = strings.TrimRight(l, "\r")
		if strings.TrimSpace(l) == "" {
			if len(cur) > 0 {
				paras = append(paras, strings.Join(cur, " "))
				cur = nil
			}
			continue
		}
		if !strings.HasPrefix(l, " ") {
			break
		}
		cur = append(cur, strings.TrimSpace(l))
	}
	if len(cur) > 0 {
		paras = append(paras, strings.Join(cur, " "))
	}
	return paras
}

// place sets where CMake said the message came from: file (made absolute
// against source where it is relative, or against the first of others
// that holds it when source does not) and line.
func (d *Diagnostic) place(file, line, source string, others ...string) {
	d.File = file
	if !filepath.IsAbs(d.File) && source != "" {
		d.File = filepath.Join(source, file)
		if _, err := os.Stat(d.File); err != nil {
			for _, o := range others {
				if _, err := os.Stat(filepath.Join(o, file)); err == nil {
					d.File = filepath.Join(o, file)
					break
				}
			}
		}
	}
	d.Line, _ = strconv.Atoi(line)
}
