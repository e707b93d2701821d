package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// Isolation checks that a build compiled nothing of another backend (check
// 7): no translation unit in its compile_commands.json (CMake's
// CMAKE_EXPORT_COMPILE_COMMANDS) is a file of another backend's overlay.
// Files are compared by their path relative to the tree. An overlay file
// that replaces a pristine file also exists, in its pristine form, in every
// other tree; when Pristine is set such a file counts only if the compiled
// copy has the foreign overlay's bytes rather than the pristine ones.
type Isolation struct {
	// CompileCommands is the build's compile_commands.json.
	CompileCommands string
	// Tree is the source tree the build compiled.
	Tree string
	// Foreign lists the other backends' overlay directories.
	Foreign []string
	// Own is this backend's overlay (its layers composed): a file it shares
	// with another backend (the reference's patches/ goes to every backend)
	// is no leak when the tree holds this overlay's copy.
	Own string
	// Pristine is the pristine source, to tell a replaced file's pristine
	// copy from a leaked overlay copy; optional.
	Pristine string
	// Require fails the check, instead of skipping it, when there is no
	// compile_commands.json yet.
	Require bool
	// Records lists the overlays' records files, left out of their file
	// lists; default records.Names.
	Records []string
}

type compileCommand struct {
	Directory string `json:"directory"`
	File      string `json:"file"`
}

// Name is the check's name in reports.
func (Isolation) Name() string { return "isolation" }

// Run reads the compile commands and looks for foreign files.
func (c Isolation) Run(ctx context.Context) Result {
	data, err := os.ReadFile(c.CompileCommands)
	if os.IsNotExist(err) && !c.Require {
		return skipped(c.Name(), fmt.Sprintf("no %s yet (build first; CMake writes it with CMAKE_EXPORT_COMPILE_COMMANDS=ON)", c.CompileCommands))
	}
	if err != nil {
		return result(c.Name(), []Finding{{File: c.CompileCommands, Message: fmt.Sprintf("cannot read: %v", err),
			Fix: "build the backend with CMAKE_EXPORT_COMPILE_COMMANDS=ON"}}, "")
	}
	var cmds []compileCommand
	if err := json.Unmarshal(data, &cmds); err != nil {
		return result(c.Name(), []Finding{{File: c.CompileCommands, Message: fmt.Sprintf("not a compilation database: %v", err),
			Fix: "delete the build directory and build again"}}, "")
	}
	foreign := map[string]string{} // relative path -> foreign overlay file
	isRecord := recordSet(c.Records)
	for _, o := range c.Foreign {
		files, err := walkFiles(o)
		if err != nil {
			return result(c.Name(), []Finding{{File: o, Message: fmt.Sprintf("cannot read the overlay: %v", err), Fix: "check the backends: entries of the project file"}}, "")
		}
		for _, f := range files {
			if !isRecord[f] {
				foreign[f] = display(o, f)
			}
		}
	}
	tree, _ := filepath.Abs(c.Tree)
	if t, err := filepath.EvalSymlinks(tree); err == nil {
		tree = t
	}
	var fs []Finding
	for i, cc := range cmds {
		p := cc.File
		if !filepath.IsAbs(p) {
			p = filepath.Join(cc.Directory, p)
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		rel, err := filepath.Rel(tree, filepath.Clean(p))
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			continue // not a file of the tree
		}
		rel = filepath.ToSlash(rel)
		src, ok := foreign[rel]
		if !ok || !c.leaked(rel, src) {
			continue
		}
		fs = append(fs, Finding{File: c.CompileCommands, Line: entryLine(data, i),
			Message: fmt.Sprintf("compiles %s, a file of another backend's overlay (%s)", rel, src),
			Fix:     "the overlay must be copied only for its own backend: clean this backend's tree (cache:clean) and rebuild, and check that its CMake options do not enable the other backend"})
	}
	return result(c.Name(), fs, plural.Count(len(cmds), "compile command"))
}

// leaked reports whether the tree's copy of rel is the foreign overlay's
// file rather than a pristine file of the same name.
func (c Isolation) leaked(rel, foreignFile string) bool {
	if c.Own != "" {
		own, err1 := os.ReadFile(display(c.Own, rel))
		mine, err2 := os.ReadFile(display(c.Tree, rel))
		if err1 == nil && err2 == nil && bytes.Equal(mine, own) {
			return false
		}
	}
	if c.Pristine == "" {
		return true
	}
	pristine, err := os.ReadFile(display(c.Pristine, rel))
	if err != nil {
		return true // added by the foreign overlay: its very name is a leak
	}
	mine, err1 := os.ReadFile(display(c.Tree, rel))
	theirs, err2 := os.ReadFile(foreignFile)
	if err1 != nil || err2 != nil {
		return true
	}
	return bytes.Equal(mine, theirs) && !bytes.Equal(mine, pristine)
}

// entryLine returns the line where the i-th entry of a compilation database
// starts, counting top-level objects; 0 if it cannot tell.
func entryLine(data []byte, i int) int {
	depth, n := 0, -1
	inStr := false
	for off := 0; off < len(data); off++ {
		b := data[off]
		if inStr {
			if b == '\\' {
				off++
			} else if b == '"' {
				inStr = false
			}
			continue
		}
		switch b {
		case '"':
			inStr = true
		case '{':
			if depth == 1 {
				n++
				if n == i {
					return lineOf(data, off)
				}
			}
			depth++
		case '[':
			depth++
		case '}', ']':
			depth--
		}
	}
	return 0
}
