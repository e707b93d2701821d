package configs

import "slices"

// Merge returns base extended by over, without changing either. The rules,
// explicit so a project knows what its override does:
//   - scalars set in over replace base's (description, rpath.mode, jobs);
//   - toolchain and architectures set in over replace base's whole section;
//   - constraints merge by tool, over winning;
//   - defines merge by name (and platforms): a name base has is replaced in
//     place, a new one is appended;
//   - libraries merge by name the same way in each link list, and names in
//     link.remove are dropped from every list;
//   - compile.std replaces; compile.defines merge by name (and platforms)
//     like defines; compile.include is a union;
//   - plain lists (platforms, conflicts, records, triggers, search and
//     run path dirs) are unions, base's order first.
func Merge(base, over *Spec) *Spec {
	out := clone(base)
	if over.Description != "" {
		out.Description = over.Description
	}
	out.Platforms = Union(out.Platforms, over.Platforms)
	out.Conflicts = Union(out.Conflicts, over.Conflicts)
	if over.Toolchain != nil {
		t := *over.Toolchain
		out.Toolchain = &t
	}
	for k, v := range over.Constraints {
		if out.Constraints == nil {
			out.Constraints = map[string]string{}
		}
		out.Constraints[k] = v
	}
	out.Defines = mergeDefines(out.Defines, over.Defines)
	if over.Architectures != nil {
		a := *over.Architectures
		out.Architectures = &a
	}
	out.Link.Static = mergeLibs(out.Link.Static, over.Link.Static, over.Link.Remove)
	out.Link.Dynamic = mergeLibs(out.Link.Dynamic, over.Link.Dynamic, over.Link.Remove)
	out.Link.System = mergeLibs(out.Link.System, over.Link.System, over.Link.Remove)
	out.Link.Frameworks = mergeLibs(out.Link.Frameworks, over.Link.Frameworks, over.Link.Remove)
	out.Link.Search = Union(out.Link.Search, over.Link.Search)
	out.Link.Stubs = Union(out.Link.Stubs, over.Link.Stubs)
	out.Link.Remove = nil
	if over.Rpath.Mode != "" {
		out.Rpath.Mode = over.Rpath.Mode
	}
	out.Rpath.Dirs = Union(out.Rpath.Dirs, over.Rpath.Dirs)
	out.Compile = mergeCompile(out.Compile, over.Compile)
	out.Triggers.Env = Union(out.Triggers.Env, over.Triggers.Env)
	out.Triggers.Paths = Union(out.Triggers.Paths, over.Triggers.Paths)
	out.Records = Union(out.Records, over.Records)
	out.Verify = Union(out.Verify, over.Verify)
	out.Dependencies = mergeDependencies(out.Dependencies, over.Dependencies)
	out.CMakePackages = mergeCMakePackages(out.CMakePackages, over.CMakePackages)
	if over.Jobs.MemoryPerJobGiB != 0 {
		out.Jobs = over.Jobs
	}
	if over.Bundle != nil {
		out.Bundle = over.Bundle // a policy is replaced whole: its lists decide together
	}
	out.Source = base.Source + " + " + over.Source
	return out
}

func clone(s *Spec) *Spec {
	c := *s
	c.memo = fingerprintMemo{} // the merge changes it: hash the result
	c.Platforms = append([]string(nil), s.Platforms...)
	c.Conflicts = append([]string(nil), s.Conflicts...)
	if s.Toolchain != nil {
		t := *s.Toolchain
		t.Fallbacks = append([]string(nil), t.Fallbacks...)
		c.Toolchain = &t
	}
	if s.Constraints != nil {
		c.Constraints = map[string]string{}
		for k, v := range s.Constraints {
			c.Constraints[k] = v
		}
	}
	c.Defines = append([]Define(nil), s.Defines...)
	if s.Architectures != nil {
		a := *s.Architectures
		c.Architectures = &a
	}
	c.Link = link{
		Static:     append([]Lib(nil), s.Link.Static...),
		Dynamic:    append([]Lib(nil), s.Link.Dynamic...),
		System:     append([]Lib(nil), s.Link.System...),
		Frameworks: append([]Lib(nil), s.Link.Frameworks...),
		Search:     append([]string(nil), s.Link.Search...),
		Stubs:      append([]string(nil), s.Link.Stubs...),
	}
	c.Rpath.Dirs = append([]string(nil), s.Rpath.Dirs...)
	c.Compile = Compile{Std: s.Compile.Std, Include: append([]string(nil), s.Compile.Include...), Defines: append([]CompileDefine(nil), s.Compile.Defines...)}
	c.Triggers = triggers{Env: append([]string(nil), s.Triggers.Env...), Paths: append([]string(nil), s.Triggers.Paths...)}
	c.Records = append([]string(nil), s.Records...)
	c.Verify = append([]string(nil), s.Verify...)
	c.Dependencies = append([]Dependency(nil), s.Dependencies...)
	c.CMakePackages = append([]cmakePackage(nil), s.CMakePackages...)
	return &c
}

// Union returns a followed by the elements of b it lacks, in order.
func Union(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// replaceOrAppend merges an override's list into the base's: an entry of
// over replaces every entry of base that same takes for it (the override
// wins where it names one), the others are appended, in order. base is not
// changed.
func replaceOrAppend[T any](base, over []T, same func(a, b T) bool) []T {
	out := append([]T(nil), base...)
	for _, o := range over {
		replaced := false
		for i := range out {
			if same(out[i], o) {
				out[i] = o
				replaced = true
			}
		}
		if !replaced {
			out = append(out, o)
		}
	}
	return out
}

func mergeDefines(base, over []Define) []Define {
	return replaceOrAppend(base, over, func(a, b Define) bool { return defKey(a) == defKey(b) })
}

func mergeLibs(base, over []Lib, remove []string) []Lib {
	var kept []Lib
	for _, l := range base {
		if !slices.Contains(remove, l.Name) {
			kept = append(kept, l)
		}
	}
	return replaceOrAppend(kept, over, func(a, b Lib) bool { return a.Name == b.Name })
}

func mergeCompile(base, over Compile) Compile {
	out := base
	if over.Std != "" {
		out.Std = over.Std
	}
	out.Include = Union(base.Include, over.Include)
	out.Defines = replaceOrAppend(base.Defines, over.Defines, func(a, b CompileDefine) bool { return compileDefKey(a) == compileDefKey(b) })
	return out
}
