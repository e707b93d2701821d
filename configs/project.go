package configs

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/gitrun"
	"github.com/mlxbuild/mlxbuild/internal/inputfile"
	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// projectFileName is the project file found by walking up from the
// working directory.
const projectFileName = "mlxbuild.yaml"

// Project is a parsed mlxbuild.yaml.
type Project struct {
	Pos      Pos       `json:"-"`
	Source   source    `yaml:"source" required:"true"`
	Cache    string    `yaml:"cache"`
	Launcher *Launcher `yaml:"launcher"`
	// DepsMirror is a local directory of dependency archives and git
	// repositories (named as deps:fetch -mirror expects): builds and
	// deps:fetch seed the verified cache from it, never from the network.
	DepsMirror string                     `yaml:"deps_mirror"`
	Backends   map[string]*ProjectBackend `yaml:"backends"`

	// File is the project file's path and Dir its directory; relative
	// paths in the file are relative to Dir.
	File string `yaml:"-"`
	Dir  string `yaml:"-"`
	// at keeps the positions of values for later checks.
	at map[string]Pos
}

// source says where the pristine MLX source comes from.
type source struct {
	Pos Pos    `json:"-"`
	Git string `yaml:"git"` // URL, local path or file:// URL of a repository
	Dir string `yaml:"dir"` // a checkout used as it is
	Pin string `yaml:"pin"` // full 40-hex commit
}

// Launcher is a compiler launcher (ccache, sccache) that may share a remote
// cache between machines. Credentials never go here: only the environment.
type Launcher struct {
	Pos    Pos    `json:"-"`
	Tool   string `yaml:"tool" required:"true"` // ccache or sccache
	Remote string `yaml:"remote"`               // redis://host:port, http://...
}

// ProjectBackend is the project's part of one backend.
type ProjectBackend struct {
	Pos     Pos    `json:"-"`
	Overlay string `yaml:"overlay"`
	// Spec is a spec file that extends or replaces the embedded one;
	// Merge says which, and must be given with it.
	Spec  string `yaml:"spec"`
	Merge string `yaml:"merge"`
	// Fork is where the overlay's upstream lives, for overlay:sync.
	Fork *Fork `yaml:"fork"`
	// Verify holds verify:<backend>'s declarations (kernel scope, rules).
	Verify *Verify `yaml:"verify"`
	// Layers lay several overlays, or parts of them, over the pristine
	// source in order, a later layer winning over an earlier one: the
	// reference's shared patches/ applied to several backends, its flat
	// patches-cuda/*.cpp copied into mlx/, its listed Metal files. Without
	// layers the tree is pristine + overlay.
	Layers []layer `yaml:"layers"`
}

// layer is one overlay directory, or part of one, laid over the tree.
type layer struct {
	Pos Pos `json:"-"`
	// Dir is the directory the files come from; default the backend's
	// overlay.
	Dir string `yaml:"dir"`
	// Files are patterns of the files to take, relative to Dir: `*` and
	// `?` within one name, `**` for any number of directories; a pattern
	// without them names one file. Default: every file (the records at
	// Dir's root excepted).
	Files []string `yaml:"files"`
	// To is where the files land, relative to the tree's root; default the
	// root ("mlx" puts patches-cuda/ops.cpp at mlx/ops.cpp).
	To string `yaml:"to"`
	// Optional skips a named file that does not exist, as the reference
	// does for its Metal list, instead of refusing it.
	Optional bool `yaml:"optional"`
}

// Fork is the repository an overlay is vendored from.
type Fork struct {
	Pos    Pos      `json:"-"`
	Git    string   `yaml:"git" required:"true"`
	Branch string   `yaml:"branch"`
	Dirs   []string `yaml:"dirs" required:"true"` // the fork's backend directories copied whole
	Core   []string `yaml:"core"`                 // MLX core files merged at the pin
}

// ParseProject strictly decodes and checks a project file. Paths are
// resolved against the file's directory; overlay directories must exist.
func ParseProject(file string, data []byte) (*Project, error) {
	var ps problems
	p := &Project{File: file, Dir: filepath.Dir(file)}
	p.at = decodeFile(file, data, p, &ps, false)
	p.validate(&ps)
	if err := ps.err(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Project) pos(path string) Pos {
	if q, ok := p.at[path]; ok {
		return q
	}
	return Pos{File: p.File, Line: 1, Col: 1}
}

func (p *Project) validate(ps *problems) {
	p.checkControl(ps)
	s := p.Source
	switch {
	case s.Git != "" && s.Dir != "":
		ps.add(p.pos("source.dir"), "source has both git and dir; keep one (git: a repository to check out at pin; dir: a checkout used as is)")
	case s.Git == "" && s.Dir == "" && p.at["source"] != (Pos{}):
		ps.add(p.pos("source"), "source needs git (a repository URL or path) or dir (a checkout used as is)")
	}
	if s.Pin != "" && !lowerHex(s.Pin, 40) {
		ps.add(p.pos("source.pin"), "pin %q must be a full 40-character lowercase hex commit (short SHAs are ambiguous)", short(s.Pin))
	}
	if _, given := p.at["source.pin"]; s.Git != "" && s.Pin == "" && !given {
		ps.add(p.pos("source"), "source.git needs a pin: the full 40-hex commit to build")
	}
	if s.Dir != "" {
		checkDir(ps, p.pos("source.dir"), p.Abs(s.Dir), "source.dir")
	}
	if p.DepsMirror != "" {
		checkDir(ps, p.pos("deps_mirror"), p.Abs(p.DepsMirror), "deps_mirror")
	}
	checkRepo(ps, p.pos("source.git"), "source.git", s.Git)
	if l := p.Launcher; l != nil {
		oneOf(ps, p.pos("launcher.tool"), "launcher", l.Tool, []string{"ccache", "sccache"})
		if strings.Contains(l.Remote, "@") {
			ps.add(p.pos("launcher.remote"), "launcher.remote must not hold credentials; put them in the environment (REDIS_PASSWORD-style variables of the launcher)")
		}
	}
	for name, b := range p.Backends {
		base := "backends." + name
		if !slices.Contains(Names, name) {
			oneOf(ps, p.pos(base), "backend", name, Names)
			continue
		}
		if b == nil {
			continue
		}
		if b.Overlay != "" {
			checkDir(ps, p.pos(base+".overlay"), p.Abs(b.Overlay), base+".overlay")
		}
		switch {
		case b.Spec != "" && b.Merge == "":
			ps.add(p.pos(base+".spec"), "spec needs merge: extend (add to the built-in %s spec) or merge: replace (use this file alone)", name)
		case b.Spec == "" && b.Merge != "":
			ps.add(p.pos(base+".merge"), "merge is given without a spec file")
		case b.Merge != "":
			oneOf(ps, p.pos(base+".merge"), "merge mode", b.Merge, []string{"extend", "replace"})
		}
		if b.Spec != "" {
			if _, err := os.Stat(p.Abs(b.Spec)); err != nil {
				ps.add(p.pos(base+".spec"), "spec file %s does not exist", p.Abs(b.Spec))
			}
		}
		p.validateVerify(ps, base+".verify", b.Verify)
		for i, l := range b.Layers {
			p.validateLayer(ps, fmt.Sprintf("%s.layers[%d]", base, i), b, l)
		}
		if f := b.Fork; f != nil {
			checkRepo(ps, p.pos(base+".fork.git"), base+".fork.git", f.Git)
			// Sync writes the fork's files at these paths in the overlay.
			for key, list := range map[string][]string{"dirs": f.Dirs, "core": f.Core} {
				for i, d := range list {
					if at := fmt.Sprintf("%s.fork.%s[%d]", base, key, i); !cleanRel(strings.TrimSuffix(d, "/")) {
						ps.add(p.pos(at), "%s: %q must be a clean path of the fork's tree (no leading /, no .., no ./)", at, d)
					}
				}
			}
			if f.Branch != "" {
				if err := gitrun.CheckRev(f.Branch); err != nil {
					ps.add(p.pos(base+".fork.branch"), "%s: %q %v; give the fork's branch name", base+".fork.branch", short(f.Branch), err)
				}
			}
		}
	}
}

// checkRepo refuses a repository git must not be given (an option, an
// ext:: URL that runs a command, another protocol): mlxbuild.yaml is
// versioned, so a pull request can change it.
func checkRepo(ps *problems, pos Pos, key, repo string) {
	if repo == "" {
		return
	}
	if err := gitrun.CheckRepo(repo); err != nil {
		ps.add(pos, "%s: %q %v; give a URL (https://, ssh://, git://, file://) or a path", key, short(repo), err)
	}
}

// validateLayer checks one layer: its directory exists, its patterns are
// well formed relative paths, a file it names exists (unless optional),
// and To stays inside the tree.
func (p *Project) validateLayer(ps *problems, at string, b *ProjectBackend, l layer) {
	dir := l.Dir
	if dir == "" {
		dir = b.Overlay
	}
	if dir == "" {
		ps.add(p.pos(at), "%s: this layer has no dir: and the backend has no overlay: to take it from; add dir: <directory>", at)
		return
	}
	checkDir(ps, p.pos(at+".dir"), p.Abs(dir), at+".dir")
	if l.To != "" && !cleanRel(l.To) {
		ps.add(p.pos(at+".to"), "%s.to: %q must be a clean path inside the tree (no leading /, no .., no ./, no trailing /)", at, l.To)
	}
	for j, f := range l.Files {
		fat := fmt.Sprintf("%s.files[%d]", at, j)
		if !cleanRel(f) {
			ps.add(p.pos(fat), "%s: %q must be a clean path relative to %s (no leading /, no .., no ./)", fat, f, dir)
			continue
		}
		if !strings.ContainsAny(f, "*?[") {
			if _, err := os.Stat(filepath.Join(p.Abs(dir), filepath.FromSlash(f))); err != nil && !l.Optional {
				ps.add(p.pos(fat), "%s: %s is not in %s; fix the name, or set optional: true to take it only when it exists", fat, f, p.Abs(dir))
			}
			continue
		}
		if _, err := path.Match(strings.ReplaceAll(f, "**", "*"), ""); err != nil {
			ps.add(p.pos(fat), "%s: %q is not a valid pattern (%v); use * and ? within a name, ** across directories", fat, f, err)
		}
	}
}

// checkControl refuses control characters in every path the project file
// names: paths reach cargo.txt, ldflags.txt, link.json and CMake's cache,
// where a newline would add lines of the path's choosing (a `cargo:` line
// that links or runs something else).
func (p *Project) checkControl(ps *problems) {
	paths := map[string]string{"source.dir": p.Source.Dir, "source.git": p.Source.Git, "cache": p.Cache}
	for name, b := range p.Backends {
		if b == nil {
			continue
		}
		base := "backends." + name
		paths[base+".overlay"], paths[base+".spec"] = b.Overlay, b.Spec
		for i, l := range b.Layers {
			paths[fmt.Sprintf("%s.layers[%d].dir", base, i)] = l.Dir
			paths[fmt.Sprintf("%s.layers[%d].to", base, i)] = l.To
		}
		if b.Fork != nil {
			paths[base+".fork.git"] = b.Fork.Git
			for i, d := range b.Fork.Dirs {
				paths[fmt.Sprintf("%s.fork.dirs[%d]", base, i)] = d
			}
			for i, d := range b.Fork.Core {
				paths[fmt.Sprintf("%s.fork.core[%d]", base, i)] = d
			}
		}
	}
	for key, path := range paths {
		if err := safepath.CheckControl(path); err != nil {
			ps.add(p.pos(key), "%s: %v", key, err)
		}
	}
}

// cleanRel reports whether s is a relative slash path with nothing to clean.
func cleanRel(s string) bool {
	return safepath.CheckRel(s) == nil && path.Clean(s) == s && !strings.Contains(s, "\\")
}

func checkDir(ps *problems, pos Pos, dir, key string) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		ps.add(pos, "%s: directory %s does not exist; create it or fix the path (relative to the project file)", key, dir)
	case err != nil:
		ps.add(pos, "%s: %v", key, err)
	case !st.IsDir():
		ps.add(pos, "%s: %s is not a directory", key, dir)
	}
}

// Abs resolves a path from the project file against its directory.
func (p *Project) Abs(path string) string {
	if path == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(p.Dir, path)
}

// find locates the project file: MLXBUILD_CONFIG when set, else the first
// mlxbuild.yaml walking up from dir.
func find(dir string, env func(string) string) (string, error) {
	if f := env("MLXBUILD_CONFIG"); f != "" {
		abs, err := filepath.Abs(f)
		if err != nil {
			return "", err
		}
		st, err := os.Stat(abs)
		switch {
		case err != nil:
			return "", fail.Configf("MLXBUILD_CONFIG=%s: no such file; unset MLXBUILD_CONFIG or point it at a project file", f)
		case st.IsDir():
			return "", fail.Configf("MLXBUILD_CONFIG=%s is a directory; point it at the project file itself (%s)", f, filepath.Join(f, projectFileName))
		}
		return abs, nil
	}
	start, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := start; ; d = filepath.Dir(d) {
		f := filepath.Join(d, projectFileName)
		if st, err := os.Stat(f); err == nil && !st.IsDir() {
			return f, nil
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return "", fail.Configf("%w in %s or any parent directory; create one (see README) or set MLXBUILD_CONFIG", ErrNoProjectFile, start)
}

// ErrNoProjectFile is wrapped by find's error when no project file exists,
// for the few targets that also work outside a project (arch:rocm).
var ErrNoProjectFile = errors.New("no " + projectFileName + " found")

// loadProject reads and parses a project file; fix says what to change
// when it is not a regular file or too large. The read is of a regular file
// under inputfile's bound: it ends, so no context is needed to stop it.
func loadProject(file, fix string) (*Project, error) {
	data, err := (inputfile.File{Path: file, What: "project file", Fix: fix, Limit: inputfile.ConfigLimit}).Read(context.Background())
	if fail.KindOf(err) == fail.Config {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("reading project file: %w", err)
	}
	return ParseProject(file, data)
}
