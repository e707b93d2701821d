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
	Records        *verifyRecords        `yaml:"records"`
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
// check has its default, VerifyCheck.Scope), root a folder inside it. Every
// section of a check that reads a folder embeds it.
type verifyFolder struct {
	Pos   Pos    `yaml:"-" json:"-"`
	Scope string `yaml:"scope"`
	Root  string `yaml:"root"`
}

// verifyRecords configures the records check.
type verifyRecords struct {
	verifyFolder  `yaml:",inline"`
	RequireStatus bool `yaml:"require_status"`
}

// verifyScope is the kernel_keys check's scope: the files that must declare
// a kernel key, by pattern or by name, and how many there are; launches is
// how launches are found (follow or initializers).
type verifyScope struct {
	verifyFolder `yaml:",inline"`
	Include      []string `yaml:"include"`
	Exclude      []string `yaml:"exclude"`
	Files        []string `yaml:"files"`
	Count        int      `yaml:"count"`
	Launches     string   `yaml:"launches"`
}

// verifyPatterns selects files by glob.
type verifyPatterns struct {
	verifyFolder `yaml:",inline"`
	Include      []string `yaml:"include"`
	Exclude      []string `yaml:"exclude"`
}

// verifyHygiene says which overlay files are vendored and which owned.
type verifyHygiene struct {
	verifyFolder `yaml:",inline"`
	Vendored     []string `yaml:"vendored"`
	Owned        []string `yaml:"owned"`
	Header       string   `yaml:"header"`
	HeaderLines  int      `yaml:"header_lines"`
	Notice       string   `yaml:"notice"`
}

// verifyKernelPorts names the launchers and helpers of the kernel_ports
// check and the Rust sources that call them.
type verifyKernelPorts struct {
	verifyFolder `yaml:",inline"`
	Launchers    []string `yaml:"launchers"`
	Helpers      []string `yaml:"helpers"`
	Rust         []string `yaml:"rust"`
	Exclude      []string `yaml:"exclude"`
}

// verifyLicenseHeaders says which files must carry the license header.
type verifyLicenseHeaders struct {
	verifyFolder `yaml:",inline"`
	Files        []string `yaml:"files"`
	Vendored     []string `yaml:"vendored"`
	Exclude      []string `yaml:"exclude"`
	Header       string   `yaml:"header"`
	HeaderLines  int      `yaml:"header_lines"`
}

// verifyCrossRefs says which files' cross references are checked, and
// against which upstream.
type verifyCrossRefs struct {
	verifyFolder `yaml:",inline"`
	Files        []string `yaml:"files"`
	Vendored     []string `yaml:"vendored"`
	Exclude      []string `yaml:"exclude"`
	Upstream     string   `yaml:"upstream"`
	Repo         string   `yaml:"repo"`
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
	for _, c := range VerifyChecks {
		if c.Folder != "" && v.Declares(c.Folder) {
			p.validateFolder(ps, base, c.Folder, v.Folder(c.Folder))
		}
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

// validateFolder refuses a scope that is not overlay, tree or repo, and a
// root that would leave its scope.
func (p *Project) validateFolder(ps *problems, base, section string, f verifyFolder) {
	key := base + "." + section
	switch f.Scope {
	case "", "overlay", "tree", "repo":
	default:
		ps.add(p.pos(key+".scope"), "%s.scope is %q; use overlay, tree or repo", section, f.Scope)
	}
	if f.Root != "" && (filepath.IsAbs(f.Root) || !filepath.IsLocal(filepath.FromSlash(f.Root))) {
		ps.add(p.pos(key+".root"), "%s.root %q must be a folder inside the scope, written relative to it", section, f.Root)
	}
}
