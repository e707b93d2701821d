package flow

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/ui"
)

// writeLinkPlan writes cargo.txt, ldflags.txt, cxxflags.txt and link.json
// into dir.
func writeLinkPlan(dir string, p *linkplan.Plan) error {
	// One unit: the four files always come from the same plan, whatever
	// kills mlxbuild when (see atomicfile.ReplaceDir); a no-op build leaves
	// them and their mtimes alone, so a build script that watches them does
	// not rerun.
	_, err := atomicfile.ReplaceDir(dir, map[string][]byte{
		"cargo.txt":    []byte(p.Cargo()),
		"ldflags.txt":  []byte(p.Ldflags()),
		"cxxflags.txt": []byte(p.Cxxflags()),
		"link.json":    p.JSON(),
	})
	if err != nil {
		return fmt.Errorf("writing the link plan into %s: %w; check free space and permissions", dir, err)
	}
	return nil
}

// systemDirs is systemLibDirs, listed once per run: the link plan is made
// twice (the toolchain check before the build, the plan after it).
func (p *Prepared) systemDirs() []string {
	if p.sysDirs == nil {
		p.sysDirs = systemLibDirs()
	}
	return p.sysDirs
}

// systemLibDirs are the directories the system linker searches by default
// on this machine, for the existence check of system libraries.
func systemLibDirs() []string {
	dirs := []string{"/usr/local/lib", "/lib", "/usr/lib", "/lib64", "/usr/lib64"}
	if m, _ := filepath.Glob("/usr/lib/*-linux-gnu"); len(m) > 0 {
		dirs = append(dirs, m...)
	}
	if m, _ := filepath.Glob("/lib/*-linux-gnu"); len(m) > 0 {
		dirs = append(dirs, m...)
	}
	// libstdc++.so (the link-time name) lives in GCC's own directory.
	if m, _ := filepath.Glob("/usr/lib/gcc/*/*"); len(m) > 0 {
		dirs = append(dirs, m...)
	}
	return dirs
}

// noop reports whether the build did nothing at all.
func (s *Summary) noop() bool {
	m := s.Materialize
	return len(s.Why) == 0 && s.Steps == 0 && !s.Reconfigured && m.Written+m.Restored+m.Removed+m.Touched+m.Dependents == 0
}

func printSummary(pr *ui.Printer, s *Summary) {
	if s.noop() {
		pr.Done("%s is up to date (no input changed; Ninja had nothing to do)", s.Backend)
	} else {
		pr.Done("%s built", s.Backend)
		for _, w := range s.Why {
			pr.Info("because %s", w)
		}
	}
	if s.Arch != "" {
		pr.Info("architectures: %s (from %s)", s.Arch, s.ArchSource)
	}
	m := s.Materialize
	pr.Info("tree: %d files written, %d restored, %d removed, %d touched, %d unchanged", m.Written, m.Restored, m.Removed, m.Touched, m.Unchanged)
	if s.Reconfigured {
		pr.Info("cmake: reconfigured")
	} else {
		pr.Info("cmake: configure skipped (no configure input changed)")
	}
	pr.Info("ninja: %d steps run", s.Steps)
	if s.LauncherTool != "" {
		if s.Launcher != nil {
			pr.Info("launcher %s: %s", s.LauncherTool, s.Launcher)
		} else {
			pr.Info("launcher %s: statistics unavailable", s.LauncherTool)
		}
	}
	var parts []string
	for _, ph := range s.Phases {
		parts = append(parts, fmt.Sprintf("%s %s", ph.Name, ph.Took.Round(time.Millisecond)))
	}
	pr.Info("time: %s", strings.Join(parts, ", "))
	for _, n := range s.Notes {
		pr.Info("note: %s", n)
	}
	pr.Info("link plan: %s/{cargo.txt,ldflags.txt,cxxflags.txt,link.json}", s.Out)
	pr.Info("build log: %s", s.LogPath)
}
