package configs

import (
	"fmt"
	"path/filepath"
	"regexp"
)

// Verify is a backend's verify: section in the project file: the scopes and
// rules of the checks. Each check reads a folder of a scope: the backend's
// overlay, its materialized tree, or the repository itself (the engine's own
// sources), `root:` naming a folder inside it. It is decoded and checked with
// the rest of the file, so a typo is reported at load with its position.
type Verify struct {
	Records        *VerifyRecords        `yaml:"records"`
	KernelKeys     *verifyScope          `yaml:"kernel_keys"`
	Wave32         *verifyPatterns       `yaml:"wave32"`
	Hygiene        *verifyHygiene        `yaml:"hygiene"`
	KernelPorts    *verifyKernelPorts    `yaml:"kernel_ports"`
	LicenseHeaders *verifyLicenseHeaders `yaml:"license_headers"`
	CrossRefs      *verifyCrossRefs      `yaml:"cross_refs"`
	Rules          []verifyRule          `yaml:"rules"`
	RulesScope     *verifyFolder         `yaml:"rules_scope"`
	Link           *verifyLink           `yaml:"link"`
}

// verifyFolder is where a check reads: scope is overlay, tree or repo (each
// check has its default), root a folder inside it. Every check's section
// has these three fields.
type verifyFolder struct {
	Pos   Pos    `yaml:"-" json:"-"`
	Scope string `yaml:"scope"`
	Root  string `yaml:"root"`
}

// VerifyRecords configures the records check.
type VerifyRecords struct {
	Pos           Pos    `yaml:"-" json:"-"`
	Scope         string `yaml:"scope"`
	Root          string `yaml:"root"`
	RequireStatus bool   `yaml:"require_status"`
}

// verifyScope is the kernel_keys check's scope: the files that must declare
// a kernel key, by pattern or by name, and how many there are; launches is
// how launches are found (follow or initializers).
type verifyScope struct {
	Pos      Pos      `yaml:"-" json:"-"`
	Scope    string   `yaml:"scope"`
	Root     string   `yaml:"root"`
	Include  []string `yaml:"include"`
	Exclude  []string `yaml:"exclude"`
	Files    []string `yaml:"files"`
	Count    int      `yaml:"count"`
	Launches string   `yaml:"launches"`
}

// verifyPatterns selects files by glob.
type verifyPatterns struct {
	Pos     Pos      `yaml:"-" json:"-"`
	Scope   string   `yaml:"scope"`
	Root    string   `yaml:"root"`
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
}

// verifyHygiene says which overlay files are vendored and which owned.
type verifyHygiene struct {
	Pos         Pos      `yaml:"-" json:"-"`
	Scope       string   `yaml:"scope"`
	Root        string   `yaml:"root"`
	Vendored    []string `yaml:"vendored"`
	Owned       []string `yaml:"owned"`
	Header      string   `yaml:"header"`
	HeaderLines int      `yaml:"header_lines"`
	Notice      string   `yaml:"notice"`
}

// verifyKernelPorts names the launchers and helpers of the kernel_ports
// check and the Rust sources that call them.
type verifyKernelPorts struct {
	Pos       Pos      `yaml:"-" json:"-"`
	Scope     string   `yaml:"scope"`
	Root      string   `yaml:"root"`
	Launchers []string `yaml:"launchers"`
	Helpers   []string `yaml:"helpers"`
	Rust      []string `yaml:"rust"`
	Exclude   []string `yaml:"exclude"`
}

// verifyLicenseHeaders says which files must carry the license header.
type verifyLicenseHeaders struct {
	Pos         Pos      `yaml:"-" json:"-"`
	Scope       string   `yaml:"scope"`
	Root        string   `yaml:"root"`
	Files       []string `yaml:"files"`
	Vendored    []string `yaml:"vendored"`
	Exclude     []string `yaml:"exclude"`
	Header      string   `yaml:"header"`
	HeaderLines int      `yaml:"header_lines"`
}

// verifyCrossRefs says which files' cross references are checked, and
// against which upstream.
type verifyCrossRefs struct {
	Pos      Pos      `yaml:"-" json:"-"`
	Scope    string   `yaml:"scope"`
	Root     string   `yaml:"root"`
	Files    []string `yaml:"files"`
	Vendored []string `yaml:"vendored"`
	Exclude  []string `yaml:"exclude"`
	Upstream string   `yaml:"upstream"`
	Repo     string   `yaml:"repo"`
}

// verifyRule is one source rule: files that must, or must not, match
// regular expressions (multi-line mode).
type verifyRule struct {
	Pos            Pos      `yaml:"-" json:"-"`
	Name           string   `yaml:"name" required:"true"`
	Files          []string `yaml:"files" required:"true"`
	Exclude        []string `yaml:"exclude"`
	MustContain    []string `yaml:"must_contain"`
	MustNotContain []string `yaml:"must_not_contain"`
	Count          int      `yaml:"count"`
	IgnoreComments bool     `yaml:"ignore_comments"`
	Why            string   `yaml:"why"`
}

// verifyLink adds consumer binaries and expectations to the link check.
type verifyLink struct {
	Files   []string `yaml:"files"`
	Needed  []string `yaml:"needed"`
	Runpath []string `yaml:"runpath"`
}

// validateVerify checks what the schema cannot: patterns that compile,
// rule names given once, counts that are not negative.
func (p *Project) validateVerify(ps *problems, base string, v *Verify) {
	if v == nil {
		return
	}
	if k := v.KernelKeys; k != nil && k.Count < 0 {
		ps.add(p.pos(base+".kernel_keys.count"), "kernel_keys.count is %d; give the number of files in scope (0 or more)", k.Count)
	}
	if h := v.Hygiene; h != nil && h.HeaderLines < 0 {
		ps.add(p.pos(base+".hygiene.header_lines"), "hygiene.header_lines is %d; give 0 or more", h.HeaderLines)
	}
	if k := v.KernelKeys; k != nil && k.Launches != "" && k.Launches != "follow" && k.Launches != "initializers" {
		ps.add(p.pos(base+".kernel_keys.launches"), "kernel_keys.launches is %q; use follow or initializers", k.Launches)
	}
	if l := v.LicenseHeaders; l != nil && l.HeaderLines < 0 {
		ps.add(p.pos(base+".license_headers.header_lines"), "license_headers.header_lines is %d; give 0 or more", l.HeaderLines)
	}
	for _, f := range v.folders() {
		p.validateFolder(ps, base, f)
	}
	seen := map[string]bool{}
	for i, r := range v.Rules {
		key := fmt.Sprintf("%s.rules[%d]", base, i)
		if r.Name != "" && seen[r.Name] {
			ps.add(p.pos(key+".name"), "rule name %q is given twice; findings are reported by name, so make it unique", r.Name)
		}
		seen[r.Name] = true
		if r.Count < 0 {
			ps.add(p.pos(key+".count"), "count is %d; give the number of files the rule selects (0 or more)", r.Count)
		}
		for _, list := range []struct {
			name string
			pats []string
		}{{"must_contain", r.MustContain}, {"must_not_contain", r.MustNotContain}} {
			for j, pat := range list.pats {
				if _, err := regexp.Compile("(?m)" + pat); err != nil {
					ps.add(p.pos(fmt.Sprintf("%s.%s[%d]", key, list.name, j)), "rule %q: pattern %q does not compile: %v; use Go RE2 syntax (escape ( as \\()", r.Name, pat, err)
				}
			}
		}
	}
}

// sectionFolder is one check section's scope and root, by its key.
type sectionFolder struct{ key, scope, root string }

// folders are the scope and root of every check section given.
func (v *Verify) folders() []sectionFolder {
	var fs []sectionFolder
	add := func(key, scope, root string) {
		fs = append(fs, sectionFolder{key, scope, root})
	}
	if r := v.Records; r != nil {
		add("records", r.Scope, r.Root)
	}
	if k := v.KernelKeys; k != nil {
		add("kernel_keys", k.Scope, k.Root)
	}
	if w := v.Wave32; w != nil {
		add("wave32", w.Scope, w.Root)
	}
	if h := v.Hygiene; h != nil {
		add("hygiene", h.Scope, h.Root)
	}
	if k := v.KernelPorts; k != nil {
		add("kernel_ports", k.Scope, k.Root)
	}
	if l := v.LicenseHeaders; l != nil {
		add("license_headers", l.Scope, l.Root)
	}
	if x := v.CrossRefs; x != nil {
		add("cross_refs", x.Scope, x.Root)
	}
	if r := v.RulesScope; r != nil {
		add("rules_scope", r.Scope, r.Root)
	}
	return fs
}

// validateFolder refuses a scope that is not overlay, tree or repo, and a
// root that would leave its scope.
func (p *Project) validateFolder(ps *problems, base string, f sectionFolder) {
	key := base + "." + f.key
	switch f.scope {
	case "", "overlay", "tree", "repo":
	default:
		ps.add(p.pos(key+".scope"), "%s.scope is %q; use overlay, tree or repo", f.key, f.scope)
	}
	if f.root != "" && (filepath.IsAbs(f.root) || !filepath.IsLocal(filepath.FromSlash(f.root))) {
		ps.add(p.pos(key+".root"), "%s.root %q must be a folder inside the scope, written relative to it", f.key, f.root)
	}
}
