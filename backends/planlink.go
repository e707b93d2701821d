package backends

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/hashicorp/go-version"
	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// ToolchainInfo is what the link plan needs of a located toolchain.
type ToolchainInfo struct {
	Name    string // rocm, cuda
	Env     string // ROCM_PATH, CUDA_HOME: the variable that moves it
	Root    string
	bin     string
	Lib     string
	Version *version.Version
}

// LinkInputs are the facts of one build the plan is made from.
type LinkInputs struct {
	GOOS          string
	Backend       string
	BuildDir      string         // where the static libraries are found
	TreeDir       string         // the backend's tree, for compile.include
	OutDir        string         // where the link plan is written
	Toolchain     *ToolchainInfo // nil for cpu and metal
	Architectures []string
	Pin           string
	// TreeFingerprint is the materialized tree's content identity
	// (overlays' Manifest.Fingerprint), "" before the tree exists.
	TreeFingerprint string
	// Libs answers the existence checks, once per path per run, and holds
	// the linker's default directories for system libraries; nil checks
	// shared libraries without keeping answers and skips the check of
	// system libraries.
	Libs       *LibLookup
	RerunPaths []string // overlay, project file, spec files
	// Relink is the file whose mtime says when the archives or the plan
	// last changed; cargo.txt watches it instead of them when it is set.
	Relink string
	// SkipStatic checks only the shared and system libraries, before the
	// build has produced the archives.
	SkipStatic bool
	// CompileOnly leaves every library out and checks none: a check-only
	// run (editors, lint jobs, docs.rs) links nothing, and a machine
	// without the GPU libraries may still browse and check the code.
	CompileOnly bool
	// Produced says why a static archive found in BuildDir is not this
	// build's product (nil when it is; an archive an earlier configure's
	// graph built stays on disk after its target is gone); nil takes
	// every archive found.
	Produced func(archive string) error
	// BuildStd is the C++ standard the build's CMake compiles the library
	// with ("" when it says none) and BuildStdFrom where that was read, or
	// why it says none (see CompileStd).
	BuildStd, BuildStdFrom string
}

// pinEnv is the rustc-env variable that embeds the MLX pin in the consumer.
const pinEnv = "MLXBUILD_MLX_PIN"

// Expand fills {toolchain.*} placeholders.
func Expand(s string, t *ToolchainInfo) string {
	if t == nil {
		return s
	}
	return strings.NewReplacer("{toolchain.root}", t.Root, "{toolchain.bin}", t.bin, "{toolchain.lib}", t.Lib).Replace(s)
}

// MissingLibraryError names the libraries a link would miss and what
// installs them, before the linker finds out.
type MissingLibraryError struct{ Lines []string }

func (e *MissingLibraryError) Error() string {
	return "libraries the link needs are missing:\n  " + strings.Join(e.Lines, "\n  ")
}

// PlanLink makes the link plan and checks that every library exists.
func PlanLink(s *configs.Spec, in LinkInputs) (*linkplan.Plan, error) {
	p := &linkplan.Plan{Backend: s.Backend, RpathMode: RpathMode(s), Env: map[string]string{}}
	if in.CompileOnly {
		c := *s
		c.Link.Static, c.Link.Dynamic, c.Link.System, c.Link.Frameworks = nil, nil, nil, nil
		s = &c
	}
	var missing []string
	for _, lib := range s.Link.Static {
		if !configs.OnOS(lib.OS, in.GOOS) || in.SkipStatic {
			continue
		}
		path, err := findArchive(in.BuildDir, lib.Name)
		if err == nil && in.Produced != nil {
			if perr := in.Produced(path); perr != nil {
				missing = append(missing, fmt.Sprintf("lib%s.a: %v; this build did not produce it — check the CMake targets (is the backend's option ON?) or link.static in %s", lib.Name, perr, lib.Origin))
				continue
			}
		}
		if err != nil {
			missing = append(missing, fmt.Sprintf("lib%s.a: not found under %s (%v); the build did not produce it — check the CMake targets or link.static in %s", lib.Name, in.BuildDir, err, lib.Origin))
			continue
		}
		p.Static = append(p.Static, path)
	}
	dirs := Dirs(s, in.Toolchain)
	search := dirs.Search
	for _, sl := range in.Libs.SharedLibs(s, in.GOOS, in.Toolchain) {
		switch {
		case sl.LeftOut != "":
			p.Notes = append(p.Notes, sl.LeftOut)
		case sl.Missing != "":
			missing = append(missing, sl.Missing)
		default:
			p.Dynamic = append(p.Dynamic, sl.Lib.Name)
		}
	}
	for _, lib := range s.Link.System {
		if !configs.OnOS(lib.OS, in.GOOS) {
			continue
		}
		if in.Libs != nil {
			if !in.Libs.inSystem(search, lib.Name) {
				missing = append(missing, fmt.Sprintf("lib%s.so: not found in the compiler's library directories; install %s", lib.Name, orUnknown(lib.Package)))
				continue
			}
		}
		p.System = append(p.System, lib.Name)
	}
	for _, lib := range s.Link.Frameworks {
		if configs.OnOS(lib.OS, in.GOOS) {
			p.Frameworks = append(p.Frameworks, lib.Name)
		}
	}
	if len(missing) > 0 {
		return nil, &MissingLibraryError{Lines: missing}
	}
	p.SearchDirs = search
	p.RunPaths = dirs.Run
	if a := s.Architectures; a != nil && a.RustcEnv != "" {
		p.Env[a.RustcEnv] = strings.Join(in.Architectures, ";")
	}
	if in.Pin != "" {
		p.Env[pinEnv] = in.Pin
	}
	p.Env["MLXBUILD_BACKEND"] = s.Backend
	p.TreeFingerprint = in.TreeFingerprint
	p.RerunPaths = append([]string(nil), in.RerunPaths...)
	// The archives and the plan itself: a rebuild of MLX (by this build
	// script or by a `mage build:<backend>` beside it) changes them, and
	// Cargo must then relink every consumer instead of saying Fresh.
	switch {
	case in.CompileOnly:
		// Nothing is linked, and a check-only run makes neither file: a
		// rerun-if-changed path that does not exist would rerun the script,
		// and recompile the crates on it, at every `cargo check`.
	case in.Relink != "":
		// One file mlxbuild dates: a build script run that rebuilt the
		// archives leaves it older than its own start (see flow's
		// markRelink), where the archives would rerun the script.
		p.RerunPaths = configs.Union(p.RerunPaths, []string{in.Relink})
	default:
		p.RerunPaths = configs.Union(p.RerunPaths, p.Static)
		if in.OutDir != "" {
			p.RerunPaths = configs.Union(p.RerunPaths, []string{filepath.Join(in.OutDir, linkplan.FileName)})
		}
	}
	p.Compile = planCompile(s, in)
	for _, t := range s.Triggers.Paths {
		p.RerunPaths = configs.Union(p.RerunPaths, []string{Expand(t, in.Toolchain)})
	}
	// The check-only switches: Cargo shares a build script's output
	// between `cargo check` and `cargo build` in one target directory, so
	// turning them off must run the script again, and build.
	p.RerunEnv = configs.Union([]string{"MLXBUILD_BACKENDS", "MLXBUILD_CONFIG", "MLXBUILD_CACHE", configs.CheckOnlyVar, configs.DocsRSVar}, s.Triggers.Env)
	if in.Toolchain != nil {
		p.RerunEnv = configs.Union(p.RerunEnv, []string{in.Toolchain.Env})
	}
	if a := s.Architectures; a != nil {
		p.RerunEnv = configs.Union(p.RerunEnv, []string{a.Env})
	}
	// Empty lists, not null, in link.json: consumers iterate without checks.
	for _, l := range []*[]string{&p.Static, &p.SearchDirs, &p.Dynamic, &p.System, &p.RunPaths, &p.RerunPaths, &p.RerunEnv} {
		if *l == nil {
			*l = []string{}
		}
	}
	if err := checkControl(p); err != nil {
		return nil, err
	}
	return p, nil
}

// checkControl refuses a plan with a control character in any value:
// cargo.txt and ldflags.txt are line-based, so a newline in a path (the
// overlay's, the build directory's, the toolchain's) would add a `cargo:`
// line of its own. Configuration loading refuses such paths first; this is
// the last guard before the plan is rendered.
func checkControl(p *linkplan.Plan) error {
	lists := map[string][]string{"static library": p.Static, "search directory": p.SearchDirs, "library": append(append(append([]string{}, p.Dynamic...), p.System...), p.Frameworks...),
		"run path": p.RunPaths, "rerun-if-changed path": p.RerunPaths, "rerun-if-env-changed variable": p.RerunEnv}
	for k, v := range p.Env {
		lists["rustc-env "+k] = []string{k, v}
	}
	for what, list := range lists {
		for _, v := range list {
			if err := safepath.CheckControl(v); err != nil {
				return fmt.Errorf("the %s link plan's %s %v", p.Backend, what, err)
			}
		}
	}
	return nil
}

func orUnknown(s string) string {
	if s == "" {
		return "the package that provides it"
	}
	return s
}

func missingShared(lib configs.Lib, search []string, t *ToolchainInfo) string {
	fix := "install " + orUnknown(lib.Package)
	if t != nil {
		fix += fmt.Sprintf(", or set %s to a %s install that has it", t.Env, t.Name)
	}
	return fmt.Sprintf("lib%s.so: not in %s; %s (or drop it with link.remove in a project spec override if the build does not use it)", lib.Name, strings.Join(search, ", "), fix)
}

// findArchive finds lib<name>.a under dir, preferring the shallowest path
// so a stray copy deep in a subproject does not win (among equally deep
// ones, the first in byte order). It reads the tree a level at a time and
// stops at the first level that has one: a build directory keeps its
// archives near the top, and a no-op build should not list every
// CMakeFiles folder to find them.
func findArchive(dir, name string) (string, error) {
	want := "lib" + name + ".a"
	if _, err := os.Lstat(dir); err != nil {
		return "", err
	}
	for level := []string{dir}; len(level) > 0; {
		var found, next []string
		for _, d := range level {
			entries, err := os.ReadDir(d)
			if err != nil {
				return "", err
			}
			for _, e := range entries {
				switch {
				case e.IsDir():
					next = append(next, filepath.Join(d, e.Name()))
				case e.Name() == want:
					found = append(found, filepath.Join(d, e.Name()))
				}
			}
		}
		if len(found) > 0 {
			return slices.Min(found), nil
		}
		level = next
	}
	return "", fmt.Errorf("no %s", want)
}
