package verify

import (
	"context"
	"debug/elf"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/multiarch"
	"github.com/mlxbuild/mlxbuild/internal/proc"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// Link checks built ELF files (check 9): their NEEDED entries include the
// given libraries (matched by soname prefix, so libamdhip64 matches
// libamdhip64.so.5), their RUNPATH or RPATH includes the given directories,
// and every NEEDED library resolves with LD_LIBRARY_PATH unset.
//
// Resolution follows the dynamic loader's order without running the binary
// or ldd (which may execute it, and answers only for the host): DT_RPATH
// when there is no DT_RUNPATH, then DT_RUNPATH ($ORIGIN expanded), then the
// loader's cache (`ldconfig -p`), then the loader's default directories (as
// `<PT_INTERP> --help` lists them, else /lib and /usr/lib). A candidate
// counts only when it is an ELF file of the same class and machine. The
// dynamic section is read with debug/elf, the same data `readelf -d` shows.
type Link struct {
	// Files are the ELF files (globs allowed) to check.
	Files []string
	// Needed are soname prefixes each file must have in NEEDED.
	Needed []string
	// Runpath are directories each file's RUNPATH or RPATH must contain.
	Runpath []string
	// Require fails the check, instead of skipping it, when a file does
	// not exist yet.
	Require bool
}

// Name is the check's name in reports.
func (Link) Name() string { return "link" }

// Run checks each file.
func (c Link) Run(ctx context.Context) Result {
	var fs []Finding
	var files, missing []string
	for _, pat := range c.Files {
		m, err := filepath.Glob(pat)
		if err != nil || len(m) == 0 {
			missing = append(missing, pat)
			continue
		}
		files = append(files, m...)
	}
	if len(missing) > 0 {
		if !c.Require {
			return skipped(c.Name(), fmt.Sprintf("no built output at %s yet (run build first)", strings.Join(missing, ", ")))
		}
		for _, m := range missing {
			fs = append(fs, Finding{File: m, Message: "no such file", Fix: "build the backend first, or correct the link check's files:"})
		}
	}
	l := &loader{}
	for _, f := range files {
		fs = append(fs, c.checkFile(ctx, l, f)...)
	}
	return result(c.Name(), fs, fmt.Sprintf("%s checked", plural.Count(len(files), "file")))
}

func (c Link) checkFile(ctx context.Context, l *loader, file string) []Finding {
	ef, err := elf.Open(file)
	if err != nil {
		return []Finding{{File: file, Message: fmt.Sprintf("not a readable ELF file: %v", err),
			Fix: "point the link check at a shared library or executable, not a static archive"}}
	}
	defer ef.Close()
	needed, _ := ef.DynString(elf.DT_NEEDED)
	runpath, _ := ef.DynString(elf.DT_RUNPATH)
	rpath, _ := ef.DynString(elf.DT_RPATH)
	origin, _ := filepath.Abs(filepath.Dir(file))
	var fs []Finding
	for _, want := range c.Needed {
		found := false
		for _, n := range needed {
			if strings.HasPrefix(n, want) {
				found = true
				break
			}
		}
		if !found {
			fs = append(fs, Finding{File: file, Message: fmt.Sprintf("NEEDED has no %s (has: %s)", want, listOrNone(needed)),
				Fix: fmt.Sprintf("link %s (-l%s), and call into it so --as-needed keeps it", want, strings.TrimPrefix(want, "lib"))})
		}
	}
	var searchDirs []string
	if len(runpath) == 0 {
		searchDirs = append(searchDirs, expandDirs(rpath, origin)...)
	}
	searchDirs = append(searchDirs, expandDirs(runpath, origin)...)
	have := expandDirs(append(runpath, rpath...), origin)
	for _, want := range c.Runpath {
		if !containsDir(have, expandDirs([]string{want}, origin)[0]) {
			fs = append(fs, Finding{File: file, Message: fmt.Sprintf("RUNPATH/RPATH has no %s (has: %s), so the binary needs LD_LIBRARY_PATH to start", want, listOrNone(have)),
				Fix: fmt.Sprintf("link with -Wl,-rpath,%s", want)})
		}
	}
	for _, n := range needed {
		if _, ok := l.resolve(ctx, ef, n, searchDirs); !ok {
			fs = append(fs, Finding{File: file, Message: fmt.Sprintf("%s does not resolve with LD_LIBRARY_PATH unset (searched the run path %s, the loader cache and the default directories)", n, listOrNone(searchDirs)),
				Fix: "add the directory that holds it to the run path (-Wl,-rpath,DIR), or install it where the loader looks"})
		}
	}
	return fs
}

// loader answers where the dynamic loader would find a library; the cache
// and default directories are read once per check.
type loader struct {
	read     bool
	cache    map[string][]string
	defaults []string
}

func (l *loader) resolve(ctx context.Context, ef *elf.File, name string, dirs []string) (string, bool) {
	if strings.Contains(name, "/") {
		return name, compatible(ef, name)
	}
	for _, d := range dirs {
		if p := filepath.Join(d, name); compatible(ef, p) {
			return p, true
		}
	}
	l.load(ctx, ef)
	for _, p := range l.cache[name] {
		if compatible(ef, p) {
			return p, true
		}
	}
	for _, d := range l.defaults {
		if p := filepath.Join(d, name); compatible(ef, p) {
			return p, true
		}
	}
	return "", false
}

// cleanEnv is the environment without LD_LIBRARY_PATH (and LD_PRELOAD),
// so the programs asked answer for a user who has neither set.
func cleanEnv() []string {
	var env []string
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "LD_LIBRARY_PATH=") && !strings.HasPrefix(e, "LD_PRELOAD=") {
			env = append(env, e)
		}
	}
	return env
}

func (l *loader) load(ctx context.Context, ef *elf.File) {
	if l.read {
		return
	}
	l.read = true
	l.cache = map[string][]string{}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	for _, ldconfig := range []string{"/sbin/ldconfig", "/usr/sbin/ldconfig", "ldconfig"} {
		res, err := proc.Run(ctx, proc.Cmd{Path: ldconfig, Args: []string{"-p"}, Env: cleanEnv()})
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(res.Stdout), "\n") {
			name, rest, ok := strings.Cut(strings.TrimSpace(line), " (")
			_, path, ok2 := strings.Cut(rest, "=> ")
			if ok && ok2 {
				l.cache[name] = append(l.cache[name], strings.TrimSpace(path))
			}
		}
		break
	}
	l.defaults = defaultDirs(ctx, ef)
}

// defaultDirs asks the file's own loader for its default search path.
func defaultDirs(ctx context.Context, ef *elf.File) []string {
	for _, p := range ef.Progs {
		if p.Type != elf.PT_INTERP {
			continue
		}
		b := make([]byte, p.Filesz)
		if _, err := p.ReadAt(b, 0); err != nil {
			break
		}
		interp := strings.TrimRight(string(b), "\x00")
		res, err := proc.Run(ctx, proc.Cmd{Path: interp, Args: []string{"--help"}, Env: cleanEnv()})
		if err != nil {
			break
		}
		var dirs []string
		_, after, _ := strings.Cut(string(res.Stdout), "Shared library search path:\n")
		for _, line := range strings.Split(after, "\n") {
			line = strings.TrimSpace(line)
			if line == "" {
				break
			}
			if d, ok := strings.CutSuffix(line, " (system search path)"); ok {
				dirs = append(dirs, d)
			}
		}
		if len(dirs) > 0 {
			return dirs
		}
	}
	return fallbackDirs(ef.Class, ef.Machine)
}

// fallbackDirs is a loader's default search path when it cannot be asked:
// a Debian loader's multiarch folders for the file's machine first
// (/lib/aarch64-linux-gnu on arm64, not x86-64's), then the lib64 folders
// of other 64-bit distributions, then /lib and /usr/lib.
func fallbackDirs(class elf.Class, machine elf.Machine) []string {
	var dirs []string
	if tuple, ok := multiarch.ForELF(machine); ok {
		dirs = append(dirs, "/lib/"+tuple, "/usr/lib/"+tuple)
	}
	if class == elf.ELFCLASS64 {
		dirs = append(dirs, "/lib64", "/usr/lib64")
	}
	return append(dirs, "/lib", "/usr/lib")
}

// compatible reports whether path is an ELF file the loader would accept
// for ef: same class and machine.
func compatible(ef *elf.File, path string) bool {
	f, err := elf.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	return f.Class == ef.Class && f.Machine == ef.Machine
}

// expandDirs splits colon-separated path lists and expands $ORIGIN.
func expandDirs(lists []string, origin string) []string {
	var out []string
	for _, l := range lists {
		for _, d := range strings.Split(l, ":") {
			if d == "" {
				continue
			}
			d = strings.ReplaceAll(strings.ReplaceAll(d, "${ORIGIN}", origin), "$ORIGIN", origin)
			out = append(out, filepath.Clean(d))
		}
	}
	return out
}

// containsDir reports whether dirs holds want, directly or through links.
func containsDir(dirs []string, want string) bool {
	wantReal, _ := filepath.EvalSymlinks(want)
	for _, d := range dirs {
		if d == want {
			return true
		}
		if r, err := filepath.EvalSymlinks(d); err == nil && r == wantReal {
			return true
		}
	}
	return false
}

func listOrNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
