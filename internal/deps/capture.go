package deps

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// Request is one FetchContent dependency as the tree asks for it: the
// details its FetchContent_Declare gave, as the dependency provider saw
// them during deps:lock's configure.
type Request struct {
	Name string
	Git  string // GIT_REPOSITORY
	Tag  string // GIT_TAG: a tag, a branch or a commit
	URL  string // the first URL
	// URLHash is URL_HASH's value (SHA256=<hex>), the hash upstream
	// publishes for a release archive.
	URLHash string
	// At is the FetchContent_Declare call (file:line:col) when it could be
	// found in the file that made the dependency available, else that file.
	At fail.Pos
}

// Source is the repository at its tag, or the URL, for messages.
func (r Request) Source() string {
	if r.URL != "" {
		return r.URL
	}
	return r.Git + " at " + r.Tag
}

// CaptureScript is the dependency provider of deps:lock's scratch
// configure: it records every FetchContent_MakeAvailable request with its
// declared details in captureFile and answers it with an empty stand-in
// source under stubDir, so nothing is downloaded and configure goes on to
// the next request.
//
// Why the provider rather than reading the CMake files: only the configure
// knows which FetchContent calls run for this backend with these defines
// (MLX asks for doctest only with MLX_BUILD_TESTS=ON, for cccl only with
// CUDA, for fmt only without USE_SYSTEM_FMT), and it sees the details after
// CMake expanded them (a tag held in a variable, a URL built from a
// version). A stand-in has no targets, so the configure may end with errors
// about them (CMake goes on after a non-fatal error); what it asked for
// before is what counts.
func CaptureScript(captureFile, stubDir string) string {
	var b strings.Builder
	b.WriteString("# Written by mlxbuild deps:lock; do not edit: records what FetchContent asks for.\n")
	b.WriteString("include_guard(GLOBAL)\n")
	b.WriteString("macro(mlxbuild_capture_dependency method dep_name)\n")
	fmt.Fprintf(&b, "  file(APPEND %s \"request\\t${dep_name}\\t${CMAKE_CURRENT_LIST_FILE}\\n\")\n", quote(captureFile))
	b.WriteString("  foreach(_mlxbuild_arg IN ITEMS ${ARGN})\n")
	fmt.Fprintf(&b, "    file(APPEND %s \"arg\\t${_mlxbuild_arg}\\n\")\n", quote(captureFile))
	b.WriteString("  endforeach()\n")
	b.WriteString("  string(TOUPPER \"${dep_name}\" _mlxbuild_up)\n")
	fmt.Fprintf(&b, "  set(_mlxbuild_stub %s)\n", quote(stubDir+"/${dep_name}"))
	b.WriteString("  file(MAKE_DIRECTORY \"${_mlxbuild_stub}\")\n")
	b.WriteString("  file(WRITE \"${_mlxbuild_stub}/CMakeLists.txt\" \"# an empty stand-in of mlxbuild deps:lock\\n\")\n")
	b.WriteString("  set(FETCHCONTENT_SOURCE_DIR_${_mlxbuild_up} \"${_mlxbuild_stub}\")\n")
	b.WriteString("  FetchContent_MakeAvailable(${dep_name})\n")
	b.WriteString("endmacro()\n")
	b.WriteString("cmake_language(SET_DEPENDENCY_PROVIDER mlxbuild_capture_dependency SUPPORTED_METHODS FETCHCONTENT_MAKEAVAILABLE_SERIAL)\n")
	// The quoting of captureFile and stubDir would expand ${dep_name}
	// literally escaped: the stub path keeps it as a variable.
	return strings.Replace(b.String(), `\${dep_name}`, "${dep_name}", 1)
}

// ParseCapture reads what CaptureScript recorded: a request line (name and
// the calling file) and its argument lines. A name asked for twice keeps
// its first request, as FetchContent does.
func ParseCapture(data []byte) ([]Request, error) {
	var out []Request
	seen := map[string]bool{}
	var cur *Request
	var args []string
	flush := func() {
		if cur == nil {
			return
		}
		applyArgs(cur, args)
		if !seen[strings.ToLower(cur.Name)] {
			seen[strings.ToLower(cur.Name)] = true
			out = append(out, *cur)
		}
		cur, args = nil, nil
	}
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" {
			continue
		}
		kind, rest, _ := strings.Cut(line, "\t")
		switch kind {
		case "request":
			flush()
			name, file, ok := strings.Cut(rest, "\t")
			if !ok || !validName(name) {
				return nil, fmt.Errorf("line %d of the capture: bad request %q", i+1, line)
			}
			cur = &Request{Name: name, At: fail.Pos{File: file}}
		case "arg":
			if cur == nil {
				return nil, fmt.Errorf("line %d of the capture: an argument before any request", i+1)
			}
			args = append(args, rest)
		default:
			return nil, fmt.Errorf("line %d of the capture: unknown record %q", i+1, kind)
		}
	}
	flush()
	return out, nil
}

// applyArgs takes the details deps:lock needs from FetchContent_Declare's
// arguments; the others (SOURCE_SUBDIR, GIT_SHALLOW, ...) do not change
// what is downloaded.
func applyArgs(r *Request, args []string) {
	for i := 0; i+1 < len(args); i++ {
		v := args[i+1]
		switch args[i] {
		case "GIT_REPOSITORY":
			r.Git = v
		case "GIT_TAG":
			r.Tag = v
		case "URL":
			if r.URL == "" {
				r.URL = v
			}
		case "URL_HASH":
			r.URLHash = v
		default:
			continue
		}
		i++
	}
}

func validName(n string) bool {
	if n == "" {
		return false
	}
	for _, c := range n {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("_.+-", c)) {
			return false
		}
	}
	return true
}

// declareAt finds `FetchContent_Declare(<name>` in file, for a position
// that points at what the tree asks for.
func declareAt(file, name string) (fail.Pos, bool) {
	data, err := os.ReadFile(file)
	if err != nil {
		return fail.Pos{File: file}, false
	}
	re := regexp.MustCompile(`(?im)^[ \t]*(FetchContent_Declare\s*\(\s*` + regexp.QuoteMeta(name) + `)(\s|\))`)
	loc := re.FindSubmatchIndex(data)
	if loc == nil {
		return fail.Pos{File: file}, false
	}
	start := loc[2]
	line := 1 + strings.Count(string(data[:start]), "\n")
	col := start - strings.LastIndex(string(data[:start]), "\n")
	return fail.Pos{File: file, Line: line, Col: col}, true
}

// Locate fills each request's position: the FetchContent_Declare call in
// the CMakeLists.txt of the directory that asked (the provider sees
// CMAKE_CURRENT_SOURCE_DIR, not the calling file), else in the first CMake
// file of tree that declares it, else that directory.
func Locate(reqs []Request, tree string) {
	for i := range reqs {
		dir := reqs[i].At.File
		if dir == "" {
			continue
		}
		if at, ok := declareAt(filepath.Join(dir, "CMakeLists.txt"), reqs[i].Name); ok {
			reqs[i].At = at
			continue
		}
		reqs[i].At = fail.Pos{File: dir}
		_ = filepath.WalkDir(tree, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || d.Name() != "CMakeLists.txt" && !strings.HasSuffix(d.Name(), ".cmake") {
				return nil
			}
			if at, ok := declareAt(path, reqs[i].Name); ok {
				reqs[i].At = at
				return filepath.SkipAll
			}
			return nil
		})
	}
}
