package verify

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path"
	"regexp"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// CrossRefs checks issue references across a repository. On GitHub a bare
// #NNN links to the repository that shows the file, so a reference to
// another project must be written owner/repo#NNN:
//
//   - in vendored files (copied from a fork or upstream), every bare #NNN
//     in a comment means the origin's issue and must be qualified;
//   - in the repository's own files, a bare #NNN (3 digits or more) on a
//     line that names an upstream project (mlx-lm, ml-explore, upstream,
//     ...) is that project's and must be qualified, unless the file itself
//     writes that number as the repository's own (Repo#NNN); other bare
//     numbers are the repository's own.
//
// URLs, anchors (page.html#123), HTML entities (&#123;) and qualified
// references do not count.
type CrossRefs struct {
	// Root is the directory searched, usually the repository.
	Root string `yaml:"root" required:"true"`
	// Files lists globs of files to read; default: every file.
	Files []string `yaml:"files"`
	// Vendored lists globs of copied files.
	Vendored []string `yaml:"vendored"`
	// Exclude lists globs left out (test fixtures that hold bare numbers on
	// purpose); default DefaultCrossRefExcludes.
	Exclude []string `yaml:"exclude"`
	// Upstream is a regular expression for a line that names another
	// project; default DefaultUpstreamWords.
	Upstream string `yaml:"upstream"`
	// Repo is the repository's own owner/name, for the messages.
	Repo string `yaml:"repo"`
}

// DefaultCrossRefExcludes are left out when no exclude is given: fixtures
// that hold bare numbers on purpose.
var DefaultCrossRefExcludes = []string{"tests/fixtures/**"}

// DefaultUpstreamWords are the reference engine's words for a line about
// another project.
const DefaultUpstreamWords = `(?i)mlx[-_]lm|mlx[-_]vlm|ml-explore|Blaizzy|transformers|hugging\s*face|\bupstream\b|sglang|llama\.cpp|pytorch`

var (
	ownBareRE    = lazyregexp.New(`(?:^|[^\w&#])#([0-9]{3,})\b`)
	sourceExtRE  = lazyregexp.New(`\.(?:c|cc|cpp|cxx|h|hh|hpp|cu|cuh|hip|mm|metal|rs|go)$`)
	binarySample = 8000
)

// Name is the check's name in reports.
func (CrossRefs) Name() string { return "cross_refs" }

// Run reads every selected file under Root.
func (c CrossRefs) Run(ctx context.Context) Result {
	files := c.Files
	if len(files) == 0 {
		files = []string{"**"}
	}
	exclude := c.Exclude
	if exclude == nil {
		exclude = DefaultCrossRefExcludes
	}
	upWords := c.Upstream
	if upWords == "" {
		upWords = DefaultUpstreamWords
	}
	upRE, err := regexp.Compile(upWords)
	if err != nil {
		return result(c.Name(), []Finding{{Message: fmt.Sprintf("upstream: %q is not a regular expression: %v", upWords, err), Fix: "correct upstream: of the cross_refs check"}}, "")
	}
	selected, err := selectFiles(c.Root, files, exclude)
	if err != nil {
		return result(c.Name(), []Finding{{File: c.Root, Message: fmt.Sprintf("cannot search: %v", err), Fix: "check the root: of the cross_refs check"}}, "")
	}
	own := "this repository"
	var ownRE *regexp.Regexp
	if c.Repo != "" {
		own = c.Repo
		ownRE = regexp.MustCompile(regexp.QuoteMeta(c.Repo) + `#([0-9]+)\b`)
	}
	var fs []Finding
	vendored, owned := 0, 0
	for _, rel := range selected {
		if ctx.Err() != nil {
			return skipped(c.Name(), "stopped: "+ctx.Err().Error())
		}
		file := display(c.Root, rel)
		data, err := os.ReadFile(file)
		if err != nil {
			fs = append(fs, Finding{File: file, Message: fmt.Sprintf("cannot read: %v", err), Fix: "check permissions"})
			continue
		}
		if bytes.IndexByte(data[:min(len(data), binarySample)], 0) >= 0 {
			continue // binary
		}
		if matchAny(c.Vendored, rel) {
			vendored++
			text := data
			if sourceExtRE.MatchString(path.Base(rel)) {
				text = commentsOnly(data)
			}
			fs = append(fs, bareIssues(file, text)...)
			continue
		}
		owned++
		// A number the file itself qualifies as the repository's own
		// (lablup/mlxcel#2183 beside a bare #2183) is the repository's.
		ownQualified := map[string]bool{}
		if ownRE != nil {
			for _, m := range ownRE.FindAllStringSubmatch(string(data), -1) {
				ownQualified[m[1]] = true
			}
		}
		for i, l := range strings.Split(string(data), "\n") {
			if !upRE.MatchString(l) {
				continue
			}
			for _, m := range ownBareRE.FindAllStringSubmatch(l, -1) {
				if ownQualified[m[1]] {
					continue
				}
				fs = append(fs, Finding{File: file, Line: i + 1,
					Message: fmt.Sprintf("bare #%s on a line about another project: it links to %s's #%s", m[1], own, m[1]),
					Fix:     fmt.Sprintf("write owner/repo#%s naming the project the issue belongs to (e.g. ml-explore/mlx#%s)", m[1], m[1])})
			}
		}
	}
	return result(c.Name(), fs, plural.Count(vendored, "vendored file")+", "+plural.Count(owned, "own file"))
}

// commentsOnly returns C/C++ source with everything but comments blanked,
// offsets and newlines kept.
func commentsOnly(src []byte) []byte {
	out := bytes.Repeat([]byte{' '}, len(src))
	for i, c := range src {
		if c == '\n' {
			out[i] = '\n'
		}
	}
	scanCpp(src, func(s cppSpan) {
		if s.comment {
			copy(out[s.inner[0]:s.inner[1]], src[s.inner[0]:s.inner[1]])
		}
	})
	return out
}
