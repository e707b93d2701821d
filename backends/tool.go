package backends

import (
	"context"
	"fmt"
	"os"

	"github.com/hashicorp/go-version"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// aptPackage names the Debian package that provides each tool Tool knows.
var aptPackage = map[string]string{
	"cmake":   "cmake",
	"ninja":   "ninja-build",
	"git":     "git",
	"ccache":  "ccache",
	"sccache": "sccache",
	"cargo":   "cargo",
	"readelf": "binutils",
}

// Tool finds name (cmake, ninja, git, ccache, ...) on PATH and reads its
// version from `name --version`. The error says which package installs it.
func Tool(name string) (string, *version.Version, error) {
	return tool(name, nil)
}

// toolFound is a cached Tool answer.
type toolFound struct {
	path    string
	version *version.Version
}

// ToolCached is Tool with its answer cached in cacheDir (see memo), keyed
// by PATH, every PATH directory searched before the hit and the executable
// (both ends of a symlink): a build that changes nothing runs no
// `--version`. Errors are not cached.
func ToolCached(name, cacheDir string) (string, *version.Version, error) {
	m := memo{dir: cacheDir}
	key := "tool-" + name
	var f toolFound
	if m.load(key, os.Getenv, &f) && f.version != nil {
		return f.path, f.version, nil
	}
	w := newWitness()
	path, v, err := tool(name, w)
	if err != nil {
		return path, v, err
	}
	m.store(key, w, &toolFound{path: path, version: v})
	return path, v, nil
}

func tool(name string, w *witness) (string, *version.Version, error) {
	path := w.lookPath(name, w.getenv(os.Getenv, "PATH"))
	if path == "" {
		pkg := aptPackage[name]
		if pkg == "" {
			pkg = name
		}
		return "", nil, fmt.Errorf("%s is not on PATH: install it (Debian: apt-get install %s) or add its directory to PATH", name, pkg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	defer cancel()
	w.file(path)
	res, err := proc.Run(ctx, proc.Cmd{Path: path, Args: []string{"--version"}})
	if err != nil {
		if why := foreignProgram(path, err); why != "" {
			return path, nil, fmt.Errorf("%s; or put the right %s first on PATH", why, name)
		}
		return path, nil, fmt.Errorf("%s --version failed: %v; reinstall %s", path, err, name)
	}
	v, err := parseVersion(string(res.Stdout) + string(res.Stderr))
	if err != nil {
		return path, nil, fmt.Errorf("%s --version: %v", path, err)
	}
	return path, v, nil
}
