package cmake

import (
	"fmt"
	"path/filepath"
	"strings"
)

// graphOutputs are the files dir's Ninja graph builds (the explicit and
// implicit outputs of every build statement of build.ninja and what it
// includes), as clean paths joined to dir when relative, appending to
// keys, when set, the identity of each manifest read (taken before reading
// it). A link plan takes an archive only from them (GraphProducts): one a
// graph of an earlier configure built stays on disk after CMake drops its
// target.
func graphOutputs(dir string, keys *[]string) (map[string]bool, error) {
	outs := map[string]bool{}
	tooMany, err := readManifests(dir, func(_ string, data []byte) []string {
		paths, includes := manifestOutputs(data)
		for _, p := range paths {
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			outs[filepath.Clean(p)] = true
		}
		return includes
	}, func() bool { return false }, keys)
	if err != nil {
		return nil, err
	}
	if tooMany {
		return nil, fmt.Errorf("%s: more than %d manifests", dir, maxManifests)
	}
	return outs, nil
}

// manifestOutputs reads one manifest's build statements' outputs and its
// include and subninja names. An output spelled with a variable ($out,
// ${x}) is no path Ninja's text gives, and is left out: a file it names
// is then not taken for an output.
func manifestOutputs(data []byte) (outputs, includes []string) {
	for _, line := range logicalLines(data) {
		if rest, ok := strings.CutPrefix(line, "build "); ok {
			outputs = append(outputs, edgeOutputs(rest)...)
			continue
		}
		word, rest, _ := strings.Cut(line, " ")
		if word == "include" || word == "subninja" {
			if p := strings.TrimSpace(rest); p != "" && !strings.Contains(p, "$") {
				includes = append(includes, p)
			}
		}
	}
	return outputs, includes
}

// edgeOutputs are the paths before a build statement's first unescaped
// colon ("|" starts its implicit outputs, which are outputs too), with
// Ninja's escapes ($ , $:, $$) undone.
func edgeOutputs(s string) []string {
	var out []string
	var cur strings.Builder
	plain := true // cur holds no variable
	flush := func() {
		if cur.Len() > 0 && plain && cur.String() != "|" {
			out = append(out, cur.String())
		}
		cur.Reset()
		plain = true
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '$' && i+1 < len(s) && (s[i+1] == ' ' || s[i+1] == ':' || s[i+1] == '$'):
			cur.WriteByte(s[i+1])
			i++
		case c == '$':
			plain = false
			cur.WriteByte(c)
		case c == ' ':
			flush()
		case c == ':':
			flush()
			return out
		default:
			cur.WriteByte(c)
		}
	}
	// No colon: no build statement Ninja would take.
	return nil
}
