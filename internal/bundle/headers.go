package bundle

import (
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/cmakecache"
)

// copyHeaders copies the policy's header folders into tmp, in order; a
// later entry replaces what an earlier one put at its place (include/cccl
// from MLX's own CCCL, not the toolkit's older one under include/).
func (in Input) copyHeaders(p *configs.BundlePolicy, tmp string) ([]Headers, error) {
	out := []Headers{}
	for _, h := range p.Headers {
		src, what := strings.ReplaceAll(h.From, "{toolchain.root}", in.ToolchainRoot), h.From
		if h.Dependency != "" {
			dir, found, err := dependencyDir(in.BuildDir, h.Dependency)
			if err != nil {
				return nil, err
			}
			if !found {
				// The system's copy was used (a toolkit new enough): an
				// earlier entry (the toolkit's include/) holds it, or
				// nothing does and the bundle cannot be made.
				if isDir(filepath.Join(tmp, filepath.FromSlash(h.To))) {
					continue
				}
				return nil, fmt.Errorf("%s: no FETCHCONTENT_SOURCE_DIR_%s, and no earlier header entry gave %s: the build did not take %s from mlxbuild's dependencies; build the backend again, or drop the entry from the spec's bundle.headers", filepath.Join(in.BuildDir, cmakecache.FileName), strings.ToUpper(h.Dependency), h.To, h.Dependency)
			}
			src, what = filepath.Join(dir, filepath.FromSlash(h.From)), path.Join("dependency "+h.Dependency, h.From)
		}
		if h.Define != "" {
			what = "define " + h.Define
			ninja := filepath.Join(in.BuildDir, "build.ninja")
			data, err := os.ReadFile(ninja)
			if err != nil {
				return nil, fmt.Errorf("reading %s for %s: %w; build the backend first", ninja, h.Define, err)
			}
			v, ok := defineValue(string(data), h.Define)
			if !ok {
				return nil, fmt.Errorf("%s: no -D%s=\"<folder>\" in the build's compile commands; the policy's header entry for %s cannot be filled (an MLX whose JIT needs no headers: drop the entry from the spec's bundle.headers)", ninja, h.Define, h.To)
			}
			src = v
		}
		if st, err := os.Stat(src); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("header folder %s (%s, for %s) is missing; install it or build the backend again", src, what, h.To)
		}
		// A walk does not enter a link: CUDA's include/ is one (to
		// targets/x86_64-linux/include), and /usr/local/cuda often too.
		real, err := filepath.EvalSymlinks(src)
		if err != nil {
			return nil, err
		}
		src = real
		dst := filepath.Join(tmp, filepath.FromSlash(h.To))
		if err := os.RemoveAll(dst); err != nil {
			return nil, err
		}
		if err := copyTree(src, dst); err != nil {
			return nil, err
		}
		out = append(out, Headers{Path: h.To, From: what})
	}
	return out, nil
}

// copyTree copies src's files into dst; a link to a file is copied as
// the file, a link to a folder is left out (it may point anywhere, and
// headers reached through one are reachable without it).
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			if !isFile(path) {
				return nil
			}
		case !d.Type().IsRegular():
			return nil
		}
		return copyFile(path, target, 0o644)
	})
}
