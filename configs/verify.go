package configs

import (
	"fmt"
	"regexp"
)

// Verify is a backend's verify: section in the project file: the scopes and
// rules of the checks. Directories are not given here; they follow from the
// project (overlay, tree, build). It is decoded and checked with the rest
// of the file, so a typo is reported at load with its position.
type Verify struct {
	Records    *VerifyRecords  `yaml:"records"`
	KernelKeys *VerifyScope    `yaml:"kernel_keys"`
	Wave32     *VerifyPatterns `yaml:"wave32"`
	Hygiene    *VerifyHygiene  `yaml:"hygiene"`
	Rules      []VerifyRule    `yaml:"rules"`
	Link       *VerifyLink     `yaml:"link"`
}

// VerifyRecords configures the records check.
type VerifyRecords struct {
	RequireStatus bool `yaml:"require_status"`
}

// VerifyScope is the kernel_keys check's scope: the files that must declare
// a kernel key, by pattern or by name, and how many there are.
type VerifyScope struct {
	Pos     Pos      `yaml:"-" json:"-"`
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
	Files   []string `yaml:"files"`
	Count   int      `yaml:"count"`
}

// VerifyPatterns selects files by glob.
type VerifyPatterns struct {
	Include []string `yaml:"include"`
	Exclude []string `yaml:"exclude"`
}

// VerifyHygiene says which overlay files are vendored and which owned.
type VerifyHygiene struct {
	Pos         Pos      `yaml:"-" json:"-"`
	Vendored    []string `yaml:"vendored"`
	Owned       []string `yaml:"owned"`
	Header      string   `yaml:"header"`
	HeaderLines int      `yaml:"header_lines"`
	Notice      string   `yaml:"notice"`
}

// VerifyRule is one source rule: files that must, or must not, match
// regular expressions (multi-line mode).
type VerifyRule struct {
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

// VerifyLink adds consumer binaries and expectations to the link check.
type VerifyLink struct {
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
