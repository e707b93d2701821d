package configs

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/inputfile"
)

// setting is a resolved value with the layer it came from, so plan output
// can say why a value is what it is: env > project file > built-in.
type setting struct {
	Value  string
	Origin string // "env MLXBUILD_CACHE", "project mlxbuild.yaml:3:8", "built-in"
}

// Config is everything a target needs before it touches the disk.
type Config struct {
	Project *Project
	// CacheRoot is where per-backend trees, builds and outputs live.
	CacheRoot setting
	// Jobs is MLXBUILD_JOBS when set; 0 means "decide from the machine".
	Jobs setting
}

// LoadConfig finds and loads the project file from dir and applies the
// environment on top.
func LoadConfig(dir string, env func(string) string) (*Config, error) {
	if env == nil {
		env = os.Getenv
	}
	file, err := find(dir, env)
	if err != nil {
		return nil, err
	}
	fix := "replace it with a regular file, or set MLXBUILD_CONFIG to one"
	if env("MLXBUILD_CONFIG") != "" {
		fix = "point MLXBUILD_CONFIG at a regular project file"
	}
	p, err := loadProject(file, fix)
	if err != nil {
		return nil, err
	}
	c := &Config{Project: p}
	switch {
	case env("MLXBUILD_CACHE") != "":
		abs, err := filepath.Abs(env("MLXBUILD_CACHE"))
		if err != nil {
			return nil, err
		}
		c.CacheRoot = setting{abs, "env MLXBUILD_CACHE"}
	case p.Cache != "":
		c.CacheRoot = setting{p.Abs(p.Cache), "project " + p.pos("cache").String()}
	default:
		c.CacheRoot = defaultCacheRoot(p.Dir, env)
	}
	if err := c.checkCacheRoot(env); err != nil {
		return nil, err
	}
	if j := env("MLXBUILD_JOBS"); j != "" {
		if err := CheckJobs("MLXBUILD_JOBS", j); err != nil {
			return nil, err
		}
		c.Jobs = setting{j, "env MLXBUILD_JOBS"}
	}
	return c, nil
}

// CheckJobs checks a job count read from the variable name, which the
// error names: the one to change (MLXBUILD_JOBS, or Cargo's NUM_JOBS that
// a build script reads in its place).
func CheckJobs(name, value string) error {
	if n, err := strconv.Atoi(value); err != nil || n < 1 {
		return fail.Configf("%s=%q: give a whole number of parallel jobs, 1 or more", name, value)
	}
	return nil
}

// Spec returns the effective spec of a backend: the embedded one, extended
// or replaced by the project's spec file, with the lock file (mlxbuild.lock)
// over its dependencies.
func (c *Config) Spec(name string) (*Spec, error) {
	s, err := c.DeclaredSpec(name)
	if err != nil {
		return nil, err
	}
	lock, err := ReadLock(c.LockPath())
	if err != nil || len(lock) == 0 {
		return s, err
	}
	locked := *s
	locked.Dependencies = append([]Dependency(nil), s.Dependencies...)
	applyLock(&locked, lock)
	return &locked, nil
}

// DeclaredSpec is the backend's spec as its files declare it, before the
// project's lock file (deps:lock compares the two).
func (c *Config) DeclaredSpec(name string) (*Spec, error) {
	base, err := Builtin(name)
	if err != nil {
		return nil, err
	}
	pb := c.Project.Backends[name]
	if pb == nil || pb.Spec == "" {
		return base, nil
	}
	path := c.Project.Abs(pb.Spec)
	key := "backends." + name + ".spec"
	data, err := (inputfile.File{Path: path, What: "spec", Limit: inputfile.ConfigLimit,
		Fix: fmt.Sprintf("point %s (%s) at a regular file", key, c.Project.pos(key))}).Read(context.Background())
	if fail.KindOf(err) == fail.Config {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s (backends.%s.spec): %w", path, name, err)
	}
	if pb.Merge == "replace" {
		s, err := parseWholeSpec(path, data)
		if err != nil {
			return nil, err
		}
		if s.Backend != name {
			return nil, &ConfigError{Problems: []Problem{{Pos: Pos{File: path, Line: 1, Col: 1}, Msg: fmt.Sprintf("spec declares backend %q but is used for backends.%s", s.Backend, name)}}}
		}
		return s, nil
	}
	over, err := parseOverride(path, data)
	if err != nil {
		return nil, err
	}
	if over.Backend != "" && over.Backend != name {
		return nil, &ConfigError{Problems: []Problem{{Pos: over.Pos, Msg: fmt.Sprintf("spec declares backend %q but extends %s", over.Backend, name)}}}
	}
	merged := Merge(base, over)
	// A merge can create what neither file has alone (a duplicate
	// library across lists): check the result too.
	var ps problems
	validateSpec(merged, nil, Pos{File: path, Line: 1, Col: 1}, &ps)
	if err := ps.err(); err != nil {
		return nil, err
	}
	return merged, nil
}

// Overlay returns the absolute overlay directory of a backend, or "".
func (c *Config) Overlay(name string) string {
	if pb := c.Project.Backends[name]; pb != nil {
		return c.Project.Abs(pb.Overlay)
	}
	return ""
}

// Layers returns the backend's layers with their directories made absolute
// (a layer without dir: takes the backend's overlay); nil when it declares
// none, and the tree is pristine + Overlay.
func (c *Config) Layers(name string) []layer {
	pb := c.Project.Backends[name]
	if pb == nil || len(pb.Layers) == 0 {
		return nil
	}
	out := make([]layer, len(pb.Layers))
	for i, l := range pb.Layers {
		if l.Dir == "" {
			l.Dir = pb.Overlay
		}
		l.Dir = c.Project.Abs(l.Dir)
		out[i] = l
	}
	return out
}
