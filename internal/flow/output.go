package flow

import (
	"fmt"
	"strings"
	"time"

	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/multiarch"
	"github.com/mlxbuild/mlxbuild/internal/ui"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// writeLinkPlan writes cargo.txt, ldflags.txt, cxxflags.txt and link.json
// into dir.
func writeLinkPlan(l cache.Layout, p *linkplan.Plan) error { return writeLinkFiles(l, linkFiles(p)) }

// linkFiles are the link plan's files by name.
func linkFiles(p *linkplan.Plan) map[string][]byte {
	return map[string][]byte{
		"cargo.txt":    []byte(p.Cargo()),
		"ldflags.txt":  []byte(p.Ldflags()),
		"cxxflags.txt": []byte(p.Cxxflags()),
		"link.json":    p.JSON(),
	}
}

func writeLinkFiles(l cache.Layout, files map[string][]byte) error {
	dir := l.Out
	// One unit: the four files always come from the same plan, whatever
	// kills mlxbuild when (see atomicfile.ReplaceDir); a no-op build leaves
	// them and their mtimes alone, so a build script that watches them does
	// not rerun.
	changed, err := atomicfile.ReplaceDir(dir, files)
	if err != nil {
		return fmt.Errorf("writing the link plan into %s: %w; check free space and permissions", dir, err)
	}
	return markRelink(l, changed)
}

// libLookup is this run's library lookup (see backends.LibLookup), made
// once: the link plan is made twice (the toolchain check before the
// build, the plan after it). Where the last run found each library is
// kept in the discovery cache.
func (p *Prepared) libLookup() *backends.LibLookup {
	if p.libs == nil {
		p.libs = backends.NewLibLookup(systemLibDirs, systemLibGlobs, p.Layout.Discovery)
	}
	return p.libs
}

// systemLibDirs and systemLibGlobs are the directories the system linker
// searches by default on this machine, for the existence check of system
// libraries. GCC's own directory (libstdc++.so, the link-time name, is
// there) comes first of the patterns: it is small, and the multiarch
// folders are large. Those are this host's only: a multiarch Debian may
// also hold another architecture's (/usr/lib/x86_64-linux-gnu on an
// aarch64 host), whose libraries this link cannot use.
var (
	systemLibDirs  = []string{"/usr/local/lib", "/lib", "/usr/lib", "/lib64", "/usr/lib64"}
	systemLibGlobs = []string{"/usr/lib/gcc/*/*", "/usr/lib/" + multiarch.Host(), "/lib/" + multiarch.Host()}
)

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
		if s.Steps > 0 {
			for _, w := range touchReasons(s.Materialize.TouchedFiles, true) {
				pr.Info("because %s", w)
			}
		}
	}
	if s.Arch != "" {
		pr.Info("architectures: %s (from %s)", s.Arch, s.ArchSource)
	}
	m := s.Materialize
	pr.Info("tree: %s written, %d restored, %d removed, %d touched, %d unchanged", plural.Count(m.Written, "file"), m.Restored, m.Removed, m.Touched, m.Unchanged)
	if s.Reconfigured {
		pr.Info("cmake: reconfigured")
	} else {
		pr.Info("cmake: configure skipped (no configure input changed)")
	}
	pr.Info("ninja: %s run", plural.Count(s.Steps, "step"))
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
	if s.Bound.Lower() > 0 {
		order := "ninja's order"
		if s.Ordered {
			order = "longest chains first"
		}
		pr.Info("%s; %s", s.Bound, order)
	}
	for _, n := range s.Notes {
		pr.Info("note: %s", n)
	}
	pr.Info("link plan: %s/{cargo.txt,ldflags.txt,cxxflags.txt,link.json}", s.Out)
	pr.Info("build log: %s", s.LogPath)
}
