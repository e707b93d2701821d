package flow

import (
	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/compilecache"
)

// launchScript writes the CMake file that puts the launcher in front of the
// custom commands of a HIP build (compilecache.LaunchScript) and returns it
// as a top-level include; none for a build without HIP. Configure is when
// the launcher changes, so what the chosen cache cannot do is said here,
// once per change.
func (p *Prepared) launchScript(d *decision) ([]string, error) {
	if !p.customCommands() {
		return nil, nil
	}
	if note := d.launcher.HIPNote(); note != "" {
		p.Opts.printer().Warn("%s", note)
	}
	file := p.Layout.Launch
	if _, err := atomicfile.WriteIfChanged(file, []byte(compilecache.LaunchScript()), 0o644); err != nil {
		return nil, err
	}
	return []string{file}, nil
}
