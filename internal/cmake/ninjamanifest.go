package cmake

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/memo"
)

// manifestScan is what the no-work record needs from Ninja's manifests:
// every file Ninja parses, and whether anything in them makes Ninja read a
// file that is no node of its graph (a depfile with no deps log), add nodes
// while it builds (dyndep), or keep its logs elsewhere (builddir). A record
// of file identities stands for Ninja's answer only where none does.
type manifestScan struct {
	files  []string // build.ninja and every include and subninja, as Ninja opens them
	refuse string   // why no record can stand for this graph; "" when one can
}

// maxManifests bounds the include chain: Ninja itself stops a cycle, and
// a build with more manifests than this is not CMake's.
const maxManifests = 64

// ninjaRule is what a rule binds that decides how its edges find headers.
type ninjaRule struct {
	depfile bool   // binds a non-empty depfile
	deps    string // the deps binding's value ("" when unbound)
}

// scanManifests reads dir's build.ninja and what it includes.
func scanManifests(dir string) (manifestScan, error) {
	var s manifestScan
	rules := map[string]ninjaRule{}
	var edges []ninjaEdge
	tooMany, err := readManifests(dir, func(name string, data []byte) []string {
		s.files = append(s.files, name)
		m := parseManifest(data)
		if m.refuse != "" {
			s.refuse = name + ": " + m.refuse
			return nil
		}
		for name, r := range m.rules {
			if old, ok := rules[name]; ok && old != r {
				s.refuse = fmt.Sprintf("rule %s is defined twice, differently", name)
				return nil
			}
			rules[name] = r
		}
		edges = append(edges, m.edges...)
		return m.includes
	}, func() bool { return s.refuse != "" }, nil)
	switch {
	case err != nil:
		return s, err
	case tooMany:
		s.refuse = fmt.Sprintf("more than %d manifests", maxManifests)
	case s.refuse == "":
		s.refuse = depfileRefusal(rules, edges)
	}
	return s, nil
}

// readManifests reads dir's build.ninja, then each manifest it includes
// (include, subninja) once, in Ninja's order, handing each to visit, which
// returns the names it includes; it stops when stop says so, and reports
// tooMany past maxManifests. With keys set it appends the identity
// (memo.ID.Key) of each manifest, taken before reading it, for a memo of
// what was derived from them.
func readManifests(dir string, visit func(name string, data []byte) []string, stop func() bool, keys *[]string) (tooMany bool, err error) {
	seen := map[string]bool{}
	queue := []string{"build.ninja"}
	for len(queue) > 0 && !stop() {
		name := queue[0]
		queue = queue[1:]
		if seen[name] {
			continue
		}
		seen[name] = true
		if len(seen) > maxManifests {
			return true, nil
		}
		if keys != nil {
			*keys = append(*keys, memo.Of(joinBuild(dir, name)).Key())
		}
		data, err := os.ReadFile(joinBuild(dir, name))
		if err != nil {
			return false, fmt.Errorf("read %s: %w", joinBuild(dir, name), err)
		}
		queue = append(queue, visit(name, data)...)
	}
	return false, nil
}

// depfileRefusal says which edge reads a depfile that Ninja does not keep
// in its deps log (it reads such a file on every run, and the headers it
// names are no nodes); "" when none does.
func depfileRefusal(rules map[string]ninjaRule, edges []ninjaEdge) string {
	for _, e := range edges {
		r := rules[e.rule]
		depfile, deps := r.depfile || e.depfile, r.deps
		if e.depsSet {
			deps = e.deps
		}
		if depfile && deps != "gcc" && deps != "msvc" {
			return fmt.Sprintf("an edge of rule %s reads a depfile Ninja does not log (deps = %q)", e.rule, deps)
		}
	}
	return ""
}

// joinBuild is the path Ninja opens for name from dir: names are relative
// to the directory it runs in (-C), kept as written (no cleaning, which
// would change what ".." means under a symlinked directory).
func joinBuild(dir, name string) string {
	if strings.HasPrefix(name, "/") {
		return name
	}
	return dir + "/" + name
}

// ninjaEdge is what a build statement binds that decides how it finds
// headers.
type ninjaEdge struct {
	rule    string
	depfile bool
	deps    string
	depsSet bool
}

// parsedManifest is one manifest file, read as far as the record needs.
type parsedManifest struct {
	rules    map[string]ninjaRule
	edges    []ninjaEdge
	includes []string
	refuse   string
}

// parseManifest reads one manifest's statements: its rules' and edges'
// depfile and deps bindings, its include and subninja names, and anything
// that rules a record out. What it cannot read plainly is a refusal, never
// a guess: Ninja then answers itself.
func parseManifest(data []byte) parsedManifest {
	m := parsedManifest{rules: map[string]ninjaRule{}}
	var rule *ninjaRule
	var ruleName string
	var edge *ninjaEdge
	flush := func() {
		if rule != nil {
			if old, ok := m.rules[ruleName]; ok && old != *rule {
				m.refuse = fmt.Sprintf("rule %s is defined twice, differently", ruleName)
			}
			m.rules[ruleName] = *rule
		}
		if edge != nil {
			m.edges = append(m.edges, *edge)
		}
		rule, edge = nil, nil
	}
	for _, line := range logicalLines(data) {
		if m.refuse != "" {
			return m
		}
		trimmed := strings.TrimLeft(line, " ")
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		if trimmed != line {
			// A binding of the statement above.
			key, value, ok := binding(trimmed)
			if !ok {
				m.refuse = fmt.Sprintf("unreadable binding %q", trimmed)
				return m
			}
			switch key {
			case "dyndep":
				m.refuse = "an edge has a dyndep file"
			case "depfile":
				if rule != nil {
					rule.depfile = value != ""
				} else if edge != nil {
					edge.depfile = value != ""
				}
			case "deps":
				if strings.Contains(value, "$") {
					m.refuse = fmt.Sprintf("deps = %q is not a plain value", value)
				}
				if rule != nil {
					rule.deps = value
				} else if edge != nil {
					edge.deps, edge.depsSet = value, true
				}
			}
			continue
		}
		flush()
		word, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimLeft(rest, " ")
		switch word {
		case "rule":
			rule, ruleName = &ninjaRule{}, strings.TrimRight(rest, " ")
		case "build":
			name, ok := edgeRule(rest)
			if !ok {
				m.refuse = fmt.Sprintf("unreadable build statement %q", line)
				return m
			}
			edge = &ninjaEdge{rule: name}
		case "include", "subninja":
			path := strings.TrimRight(rest, " ")
			if path == "" || strings.Contains(path, "$") {
				m.refuse = fmt.Sprintf("%s %q is not a plain path", word, path)
				return m
			}
			m.includes = append(m.includes, path)
		case "default", "pool":
		default:
			key, _, ok := binding(line)
			if !ok {
				m.refuse = fmt.Sprintf("unreadable statement %q", line)
				return m
			}
			switch key {
			case "builddir", "depfile", "deps", "dyndep":
				// Edges would find these at file scope, or Ninja's
				// logs live elsewhere.
				m.refuse = fmt.Sprintf("the file binds %s at top level", key)
			}
		}
	}
	flush()
	return m
}

// binding splits "key = value" (the value trimmed of the spaces Ninja
// skips); false when there is no key.
func binding(s string) (key, value string, ok bool) {
	key, value, ok = strings.Cut(s, "=")
	key = strings.TrimRight(key, " ")
	if !ok || key == "" || strings.ContainsAny(key, " $:") {
		return "", "", false
	}
	return key, strings.Trim(value, " "), true
}

// edgeRule is the rule name of a build statement's text after "build ":
// the first word after its first unescaped colon.
func edgeRule(s string) (string, bool) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '$':
			i++ // "$:", "$ ", "$$": an escaped character
		case ':':
			name, _, _ := strings.Cut(strings.TrimLeft(s[i+1:], " "), " ")
			return name, name != "" && !strings.ContainsAny(name, "$|")
		}
	}
	return "", false
}

// logicalLines splits a manifest into lines with Ninja's "$" + newline
// continuations joined (the next line's leading spaces dropped); "$$" is
// an escaped dollar, so "$$" + newline ends a line.
func logicalLines(data []byte) []string {
	var lines []string
	var cur bytes.Buffer
	for i := 0; i < len(data); i++ {
		c := data[i]
		switch {
		case c == '$' && i+1 < len(data) && data[i+1] == '$':
			cur.WriteString("$$")
			i++
		case c == '$' && i+1 < len(data) && (data[i+1] == '\n' || data[i+1] == '\r' && i+2 < len(data) && data[i+2] == '\n'):
			i++
			if data[i] == '\r' {
				i++
			}
			for i+1 < len(data) && data[i+1] == ' ' {
				i++
			}
		case c == '\n':
			lines = append(lines, strings.TrimSuffix(cur.String(), "\r"))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	if cur.Len() > 0 {
		lines = append(lines, strings.TrimSuffix(cur.String(), "\r"))
	}
	return lines
}
