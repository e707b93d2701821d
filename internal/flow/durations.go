package flow

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/cmake"
)

// The environment variables of the cold build's ordering.
const (
	// EnvOrder set to "off" builds with build.ninja as CMake wrote it:
	// the same edges in Ninja's own order (to compare, or to rule the
	// ordering out).
	EnvOrder = "MLXBUILD_ORDER"
	// EnvDurations names a duration record to read and write instead of
	// the backend directory's: one a CI cache keeps between runners, or
	// one the project ships as a profile.
	EnvDurations = "MLXBUILD_DURATIONS"
)

// durationsPath is where this backend's duration record is kept.
func (p *Prepared) durationsPath() string {
	if f := p.Opts.Env(EnvDurations); f != "" {
		return f
	}
	return p.Layout.Durations
}

// buildIdentity is what compiled the edges: a record from another
// compiler or for other architectures says nothing about this build.
func (p *Prepared) buildIdentity() string {
	id := p.Backend + " " + runtime.GOARCH
	if tc := p.Toolchain; tc != nil {
		id += " " + tc.Name
		if tc.Version != nil {
			id += " " + tc.Version.String()
		}
	}
	if p.archList != "" {
		id += "; archs " + p.archList
	}
	return id
}

// expectedDurations are the edges' expected times: the build directory's
// .ninja_log (the same tree's last build), else the duration record. A
// record that is damaged or foreign is not used, with one warning. None
// when the ordering is off.
func (p *Prepared) expectedDurations(warn func(string, ...any)) cmake.Durations {
	if p.Opts.Env(EnvOrder) == "off" {
		return nil
	}
	d, _ := p.knownDurations(warn)
	return d
}

// knownDurations are the edges' expected times and where they come from.
func (p *Prepared) knownDurations(warn func(string, ...any)) (cmake.Durations, string) {
	if d := cmake.LastDurations(p.Layout.Build); len(d) > 0 {
		return d, "the last build's .ninja_log"
	}
	if d := p.recordedDurations(warn); len(d) > 0 {
		return d, p.durationsPath()
	}
	return nil, ""
}

func (p *Prepared) recordedDurations(warn func(string, ...any)) cmake.Durations {
	path := p.durationsPath()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		warn("edge durations not used (Ninja orders this build itself): %v", err)
		return nil
	}
	r, err := cmake.ParseRecord(path, data)
	if err != nil {
		warn("edge durations not used (Ninja orders this build itself): %v", err)
		return nil
	}
	if id := p.buildIdentity(); r.Identity != id {
		warn("edge durations not used: %s records %q, this build is %q", path, r.Identity, id)
		return nil
	}
	return r.Durations
}

// recordDurations keeps this build's edge durations (its whole
// .ninja_log) for a later first build. Failing to is worth a warning,
// never a failed build.
func (p *Prepared) recordDurations(warn func(string, ...any)) {
	d := cmake.LastDurations(p.Layout.Build)
	if len(d) == 0 {
		return
	}
	var buf bytes.Buffer
	if err := cmake.WriteRecord(&buf, cmake.Record{Identity: p.buildIdentity(), Durations: d}); err != nil {
		warn("edge durations not recorded: %v", err)
		return
	}
	if _, err := atomicfile.WriteIfChanged(p.durationsPath(), buf.Bytes(), 0o644); err != nil {
		warn("edge durations not recorded: %v", fmt.Errorf("%s: %w", p.durationsPath(), err))
	}
}
