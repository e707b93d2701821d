package flow

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/arch"
	"github.com/mlxbuild/mlxbuild/backends"
	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// PlanFormat is the version of the document `plan:<backend> -json`
// prints. It changes only when a field is removed or changes its
// meaning; new fields keep it (docs/specs.md lists them).
const PlanFormat = 1

// planDoc is `plan:<backend> -json`: what plan prints, for release
// scripts. Every key is always present (null where a value does not
// apply), so a script reads it without checks.
type planDoc struct {
	Format         int            `json:"format"`
	Backend        string         `json:"backend"`
	Pin            *string        `json:"pin"`        // null for a source.dir checkout without one
	SourceDir      *string        `json:"source_dir"` // the checkout used as it is, or null
	Architectures  *planArch      `json:"architectures"`
	Toolchain      *planToolchain `json:"toolchain"`
	Libraries      []planLib      `json:"libraries"`
	RunPath        planRunPath    `json:"run_path"`
	Fingerprint    *string        `json:"fingerprint"`
	FingerprintWhy string         `json:"fingerprint_why"`
	Redo           planRedo       `json:"redo"`
	// CriticalPath is null before a first build (see planCritical).
	CriticalPath *planCritical `json:"critical_path"`
	Warnings     []string      `json:"warnings"`
	// Dependencies are the spec's FetchContent dependencies (planDep).
	Dependencies []planDep `json:"dependencies"`
}

type planArch struct {
	Targets []string `json:"targets"`
	Source  string   `json:"source"` // where the list came from
	CMake   []string `json:"cmake"`  // the CMake variables that receive it
}

type planToolchain struct {
	Kind    string  `json:"kind"`    // rocm, cuda
	Version *string `json:"version"` // null when it could not be read
	Root    string  `json:"root"`
	Lib     string  `json:"lib"`
	Env     string  `json:"env"` // the variable that moves it
}

type planLib struct {
	Kind      string `json:"kind"` // static, dynamic, system, framework
	Name      string `json:"name"`
	Origin    string `json:"origin"`
	Toolchain string `json:"toolchain"` // the toolchain version it needs, or ""
}

type planRunPath struct {
	Mode string   `json:"mode"` // runpath or legacy
	Dirs []string `json:"dirs"`
}

type planRedo struct {
	// What is what a build would redo: "nothing", "Ninja's build only"
	// (a touched file), or cache.Decision.Redo's phrase.
	What        string   `json:"what"`
	Why         []string `json:"why"`
	Refused     *string  `json:"refused"` // why a build would stop before configure, or null
	RefusedExit int      `json:"refused_exit"`
}

// PlanJSON prints Plan's facts as one JSON document (planDoc) on stdout,
// and nothing else there: warnings are a field. It writes nothing.
func PlanJSON(ctx context.Context, o Options, target, backend string) error {
	r, err := openPlan(ctx, o, target, backend)
	defer r.close()
	if err != nil {
		return err
	}
	p := r.Prepared
	doc := planDoc{Format: PlanFormat, Backend: p.Backend, Libraries: []planLib{}, Warnings: []string{}}
	if src := p.Config.Project.Source; src.Pin != "" {
		doc.Pin = &src.Pin
	}
	if d := p.Config.Project.Source.Dir; d != "" {
		abs := p.Config.Project.Abs(d)
		doc.SourceDir = &abs
	}
	if p.Arch != nil {
		doc.Architectures = &planArch{Targets: p.Arch.Targets, Source: p.Arch.Source, CMake: p.Spec.Architectures.CMake}
	}
	if t := p.Toolchain; t != nil {
		doc.Toolchain = &planToolchain{Kind: t.Name, Root: t.Root, Lib: t.Lib, Env: t.Env}
		if t.Version != nil {
			v := t.Version.String()
			doc.Toolchain.Version = &v
		}
	}
	for _, l := range linkKinds(p.Spec) {
		for _, lib := range l.libs {
			if lib.On(p.Opts.GOOS) {
				doc.Libraries = append(doc.Libraries, planLib{Kind: l.kind, Name: lib.Name, Origin: origin0(lib.Origin), Toolchain: lib.Toolchain})
			}
		}
	}
	doc.Dependencies = p.depsList()
	if doc.Dependencies == nil {
		doc.Dependencies = []planDep{}
	}
	doc.RunPath = planRunPath{Mode: backends.RpathMode(p.linkSpec()), Dirs: backends.Dirs(p.linkSpec(), p.Toolchain).Run}
	if doc.RunPath.Dirs == nil {
		doc.RunPath.Dirs = []string{}
	}
	doc.Warnings = append(doc.Warnings, p.Warnings...)
	if note := p.archDefaultNote(arch.WouldBuild); note != "" {
		doc.Warnings = append(doc.Warnings, note)
	}
	if err := p.checkBeforeConfigure(); err != nil {
		doc.Warnings = append(doc.Warnings, "a build would stop before configure: "+err.Error())
	}
	rd, err := r.redo(func(format string, args ...any) { doc.Warnings = append(doc.Warnings, fmt.Sprintf(format, args...)) })
	if err != nil {
		return err
	}
	doc.Redo = planRedo{What: rd.what, Why: rd.why}
	switch {
	case rd.refused != nil:
		msg := rd.refused.Error()
		doc.Redo.Refused, doc.Redo.RefusedExit = &msg, fail.ExitCode(rd.refused)
	case rd.what == "" && len(rd.why) == 0:
		doc.Redo.What = "nothing"
	case rd.what == "":
		doc.Redo.What = "Ninja's build only"
	}
	doc.CriticalPath, _ = p.criticalPath(func(format string, args ...any) { doc.Warnings = append(doc.Warnings, fmt.Sprintf(format, args...)) })
	doc.Fingerprint, doc.FingerprintWhy = lastFingerprint(p.Layout.Out, p.Backend, doc.Redo.What)
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	_, err = r.Opts.Stdout.Write(append(data, '\n'))
	return err
}

// lastFingerprint is the tree fingerprint of the backend's last build
// (its link.json), and a sentence saying what it is or why there is none.
// Plan materializes nothing, so it reports what the last build recorded
// rather than hash a tree the build may still rewrite.
func lastFingerprint(out, backend, redo string) (*string, string) {
	file := filepath.Join(out, linkplan.FileName)
	lp, err := linkplan.Read(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Sprintf("no build yet: %s does not exist; `mage build:%s` writes it", file, backend)
	case err != nil:
		return nil, err.Error()
	case lp.TreeFingerprint == "":
		return nil, fmt.Sprintf("%s has none (an older mlxbuild wrote it); `mage build:%s` writes it", file, backend)
	case redo != "nothing":
		return &lp.TreeFingerprint, fmt.Sprintf("the last build's, from %s; the build would redo %s, which may change it", file, redo)
	}
	return &lp.TreeFingerprint, fmt.Sprintf("the last build's, from %s; up to date", file)
}
