package bundle

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/arch"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// CheckOptions are the machine Check looks at.
type CheckOptions struct {
	SystemDirs []string // SystemDirs("/etc/ld.so.conf") on a real run
	Arch       arch.Options
	// Env reads the environment the programs will run with; nil means
	// os.Getenv.
	Env func(string) string
}

// Report is what Check found: one line per finding, and whether the
// bundle cannot run here.
type Report struct {
	Lines    []string
	Warnings []string
	Fails    bool
}

// Check says whether the bundle in dir can run on this machine: every
// library it requires from the system is where the loader looks, every
// bundled one is in lib/, and every GPU of the machine has code in it.
// It reads the bundle's manifest only, and runs no program of it.
func Check(ctx context.Context, dir string, o CheckOptions) (*Report, error) {
	file := filepath.Join(dir, ManifestName)
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fail.Configf("%s: no bundle here (no %s); give the folder bundle:<backend> -out made", dir, ManifestName)
	}
	if err != nil {
		return nil, err
	}
	m, err := decodeManifest(file, data)
	if err != nil {
		return nil, fail.AsConfig(err)
	}
	rep := &Report{}
	var missing, driver []string
	for _, l := range m.Libraries {
		switch l.How {
		case Bundled:
			if !isFile(filepath.Join(dir, "lib", l.Soname)) {
				missing = append(missing, l.Soname+" (bundled, but lib/ lacks it: copy the whole bundle)")
			}
		default:
			if find(l.Soname, o.SystemDirs) == "" {
				if l.How == Driver {
					driver = append(driver, l.Soname)
				}
				missing = append(missing, fmt.Sprintf("%s (%s, needed by %s)", l.Soname, l.How, strings.Join(l.NeededBy, ", ")))
			}
		}
	}
	if len(missing) > 0 {
		rep.Fails = true
		rep.Lines = append(rep.Lines, "missing libraries: "+strings.Join(missing, "; ")+" (looked in "+strings.Join(o.SystemDirs, ":")+")")
		if len(driver) > 0 {
			rep.Lines = append(rep.Lines, "the GPU driver's "+strings.Join(driver, ", ")+" is not installed: install the driver, not a library copy")
		}
	} else {
		rep.Lines = append(rep.Lines, fmt.Sprintf("libraries: %d bundled present, every required one found", countHow(m, Bundled)))
	}
	if m.HeaderHome != nil {
		line, ok := checkHeaderHome(dir, m.HeaderHome, o.Env)
		rep.Lines = append(rep.Lines, line)
		rep.Fails = rep.Fails || !ok
	}
	if m.Backend == "rocm" || m.Backend == "cuda" {
		r, err := arch.CheckBuilt(ctx, file+" (architectures)", m.Backend, m.Architectures, o.Arch)
		for _, res := range []*arch.Result{r.ROCm, r.CUDA} {
			if res != nil {
				rep.Warnings = append(rep.Warnings, res.Warnings...)
			}
		}
		if err != nil {
			rep.Fails = true
			rep.Lines = append(rep.Lines, "gpu: "+err.Error())
		} else {
			for _, l := range r.Lines {
				rep.Lines = append(rep.Lines, "gpu: "+l)
			}
		}
	}
	return rep, nil
}

func countHow(m *Manifest, how string) int {
	n := 0
	for _, l := range m.Libraries {
		if l.How == how {
			n++
		}
	}
	return n
}
