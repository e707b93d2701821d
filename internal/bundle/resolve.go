package bundle

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
)

// resolver walks what the programs need, as the loader would, and copies
// what the policy bundles into tmp/lib.
type resolver struct {
	in     Input
	policy *configs.BundlePolicy
	tmp    string
	libs   map[string]*Library // by soname
}

// named reports whether soname is the file of a library named in list
// (libNAME.so, libNAME.so.5, libNAME.so.5.2).
func named(soname string, list []string) bool {
	for _, n := range list {
		if p := "lib" + n + ".so"; soname == p || strings.HasPrefix(soname, p+".") {
			return true
		}
	}
	return false
}

// needs records o's dependencies; by names o in the manifest.
func (r *resolver) needs(o *object, by string) error {
	for _, soname := range o.needed {
		if err := r.add(soname, by, o); err != nil {
			return err
		}
	}
	return nil
}

func (r *resolver) add(soname, by string, from *object) error {
	if l, ok := r.libs[soname]; ok {
		if !slices.Contains(l.NeededBy, by) {
			l.NeededBy = append(l.NeededBy, by)
		}
		return nil
	}
	l := &Library{Soname: soname, How: Required, NeededBy: []string{by}}
	r.libs[soname] = l
	switch {
	case named(soname, r.policy.Driver):
		l.How = Driver
		return nil
	case !named(soname, r.policy.Libraries) && !named(soname, r.policy.Dlopen):
		return nil
	}
	dirs := append(append(append([]string(nil), from.searchPath()...), r.in.Plan.RunPaths...), r.in.Plan.SearchDirs...)
	dirs = append(dirs, r.in.SystemDirs...)
	src := find(soname, dirs)
	if src == "" {
		return fmt.Errorf("%s, which %s needs and the backend's bundle policy bundles, was found in none of %s; install it, or build the backend again", soname, by, strings.Join(dirs, ", "))
	}
	return r.copy(l, src)
}

// copy puts src into lib/ under its soname and follows what it needs.
func (r *resolver) copy(l *Library, src string) error {
	l.How = Bundled
	if err := copyFile(src, filepath.Join(r.tmp, "lib", l.Soname), 0o755); err != nil {
		return err
	}
	o, err := readObject(src)
	if err != nil {
		return err
	}
	return r.needs(o, l.Soname)
}

// dlopened bundles the libraries the runtime loads by name: the files
// lib<name>.so.* of the plan's run path folders (the toolchain's), under
// their own soname.
func (r *resolver) dlopened() error {
	for _, name := range r.policy.Dlopen {
		if named(name, r.policy.Driver) {
			continue
		}
		for _, d := range r.in.Plan.RunPaths {
			matches, _ := filepath.Glob(filepath.Join(d, "lib"+name+".so*"))
			for _, f := range matches {
				o, err := readObject(f)
				if err != nil || o.soname == "" || !named(o.soname, []string{name}) {
					continue
				}
				if l, ok := r.libs[o.soname]; ok {
					if !slices.Contains(l.NeededBy, "dlopen") {
						l.NeededBy = append(l.NeededBy, "dlopen")
					}
					continue
				}
				l := &Library{Soname: o.soname, How: Required, NeededBy: []string{"dlopen"}}
				r.libs[o.soname] = l
				if err := r.copy(l, filepath.Join(d, o.soname)); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// copyFile copies src's content (links followed) to dst, a new file in a
// folder Make created: O_EXCL, so nothing planted is written through.
func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return fmt.Errorf("reading %s: %w", src, err)
	}
	defer in.Close()
	f, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, in); err != nil {
		f.Close()
		return fmt.Errorf("writing %s: %w; check free space", dst, err)
	}
	return f.Close()
}
