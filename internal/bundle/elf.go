package bundle

import (
	"debug/elf"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// object is what the loader reads of an ELF file: the libraries it needs
// by soname, where it says to look for them, and its own soname.
type object struct {
	path    string
	soname  string
	needed  []string
	runpath []string // DT_RUNPATH, split at ':'
	rpath   []string // DT_RPATH (legacy), split at ':'
	exec    bool     // a program: ET_EXEC, or ET_DYN with an interpreter (PIE)
}

// readObject reads path's dynamic section. A file that is not ELF is a
// usage error (exit 2) naming it.
func readObject(path string) (*object, error) {
	f, err := elf.Open(path)
	if err != nil {
		var fe *elf.FormatError
		if errors.As(err, &fe) || errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), "EOF") {
			return nil, fail.Configf("%s: not an ELF executable (%v); give bundle the programs linked against the build (for Cargo, target/release/<name>)", path, err)
		}
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	o := &object{path: path}
	for _, p := range f.Progs {
		if p.Type == elf.PT_INTERP {
			o.exec = true
		}
	}
	o.exec = o.exec && (f.Type == elf.ET_EXEC || f.Type == elf.ET_DYN) || f.Type == elf.ET_EXEC
	if f.Section(".dynamic") == nil {
		return o, nil // static: needs nothing
	}
	if o.needed, err = f.DynString(elf.DT_NEEDED); err != nil {
		return nil, fmt.Errorf("%s: its dynamic section does not read: %w", path, err)
	}
	names, _ := f.DynString(elf.DT_SONAME)
	if len(names) > 0 {
		o.soname = names[0]
	}
	o.runpath = dynPath(f, elf.DT_RUNPATH)
	o.rpath = dynPath(f, elf.DT_RPATH)
	return o, nil
}

func dynPath(f *elf.File, tag elf.DynTag) []string {
	vals, _ := f.DynString(tag)
	var out []string
	for _, v := range vals {
		for _, d := range strings.Split(v, ":") {
			if d != "" {
				out = append(out, d)
			}
		}
	}
	return out
}

// searchPath is where the loader looks for the object's dependencies
// before the system: DT_RPATH only when there is no DT_RUNPATH.
func (o *object) searchPath() []string {
	if len(o.runpath) > 0 {
		return o.runpath
	}
	return o.rpath
}

// isFile reports whether path is an existing file (links followed).
func isFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
