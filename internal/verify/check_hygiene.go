package verify

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
	"github.com/mlxbuild/mlxbuild/overlays/records"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// Hygiene checks vendored and owned code in an overlay (check 6):
// vendored files refer to issues as owner/repo#NNN, never a bare #NNN
// (which GitHub links to whichever repository the file is viewed in);
// owned sources start with a licence header (vendored ones keep their own);
// and NOTICE names every vendored source UPSTREAM lists.
//
// UPSTREAM lists vendored sources as the value of `source` and of every key
// starting with `vendored` (for example `vendored_rocprim: https://...`).
// NOTICE names a source when it contains its URL or its owner/repo.
type Hygiene struct {
	// Root is the overlay directory.
	Root string
	// Vendored lists globs of files copied from elsewhere.
	Vendored []string
	// Owned lists globs of the project's own sources; vendored files are
	// left out even when they match.
	Owned []string
	// Header is a regular expression one of the first HeaderLines lines of
	// an owned source must match; default: a Copyright or SPDX line.
	Header string
	// HeaderLines is how far into a file the header may start; default 10.
	HeaderLines int
	// Notice is the NOTICE file, relative to Root; default NOTICE.
	Notice string
	// Upstream is the UPSTREAM file, relative to Root; default UPSTREAM.
	Upstream string
}

var (
	bareIssueRE      = lazyregexp.New(`(^|[^\w/&#.\-])#([1-9][0-9]{0,5})\b`)
	defaultHeaderRE  = `(?i)\bcopyright\b|SPDX-License-Identifier:`
	ownerRepoFromURL = lazyregexp.New(`github\.com[:/]([\w.-]+/[\w.-]+?)(?:\.git)?/?$`)
)

// Name is the check's name in reports.
func (Hygiene) Name() string { return "hygiene" }

// Run checks issue references, headers and NOTICE.
func (c Hygiene) Run(ctx context.Context) Result {
	all, err := walkFiles(c.Root)
	if err != nil {
		return result(c.Name(), []Finding{{File: c.Root, Message: fmt.Sprintf("cannot read the overlay: %v", err), Fix: "check the root: of the hygiene check"}}, "")
	}
	header := c.Header
	if header == "" {
		header = defaultHeaderRE
	}
	headerRE, err := regexp.Compile(header)
	if err != nil {
		return result(c.Name(), []Finding{{Message: fmt.Sprintf("header: %q is not a regular expression: %v", header, err), Fix: "correct header: in the hygiene check"}}, "")
	}
	lines := c.HeaderLines
	if lines <= 0 {
		lines = 10
	}
	var fs []Finding
	vendored, owned := 0, 0
	for _, rel := range all {
		isVendored := matchAny(c.Vendored, rel)
		isOwned := !isVendored && matchAny(c.Owned, rel)
		if !isVendored && !isOwned {
			continue
		}
		file := display(c.Root, rel)
		data, err := os.ReadFile(file)
		if err != nil {
			fs = append(fs, Finding{File: file, Message: fmt.Sprintf("cannot read: %v", err), Fix: "check permissions"})
			continue
		}
		if isVendored {
			vendored++
			fs = append(fs, bareIssues(file, data)...)
			continue
		}
		owned++
		if !hasHeader(data, headerRE, lines) {
			fs = append(fs, Finding{File: file, Line: 1, Message: fmt.Sprintf("no licence header in the first %d lines (looked for %s)", lines, header),
				Fix: "add the project's copyright/SPDX header at the top, or list the file under vendored: if it was copied from elsewhere"})
		}
	}
	fs = append(fs, c.notice()...)
	return result(c.Name(), fs, plural.Count(vendored, "vendored file")+", "+plural.Count(owned, "owned file"))
}

// bareIssues returns a finding per bare #NNN issue reference in data.
func bareIssues(file string, data []byte) []Finding {
	var fs []Finding
	lines := strings.Split(string(data), "\n")
	for i, l := range lines {
		if i > 0 && qualifiedAbove(lines[i-1], l) {
			continue
		}
		for _, m := range bareIssueRE.FindAllStringSubmatch(l, -1) {
			fs = append(fs, Finding{File: file, Line: i + 1,
				Message: fmt.Sprintf("bare issue reference #%s: in a vendored file it points at whichever repository shows it", m[2]),
				Fix:     fmt.Sprintf("write owner/repo#%s naming the repository the issue belongs to", m[2])})
		}
	}
	return fs
}

// Writers wrap a qualified reference across two lines of one comment:
// "(Port of ml-explore/mlx" then "// PR #3704, ...)". The line above ends
// with the owner/repo, this one opens with the number (after the comment
// marker, and a word such as PR or issue), and the reference's tools read it
// as qualified.
var (
	trailingRepoRE = lazyregexp.New(`(?:^|[\s(\[])[A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*\s*$`)
	leadingRefRE   = lazyregexp.New(`^\s*(?://+|/?\*+|#)?\s*(?:(?i:pr|pull request|pull|issue|issues)\s+)?#[1-9][0-9]{0,5}\b`)
)

// qualifiedAbove reports whether the reference that opens line is
// qualified by the owner/repo that ends the comment line above it.
func qualifiedAbove(above, line string) bool {
	return strings.TrimSpace(above) != "" && trailingRepoRE.MatchString(above) && leadingRefRE.MatchString(line)
}

// notice checks that NOTICE names every vendored source UPSTREAM lists.
func (c Hygiene) notice() []Finding {
	up := c.Upstream
	if up == "" {
		up = records.UpstreamName
	}
	upFile := filepath.Join(c.Root, filepath.FromSlash(up))
	data, err := os.ReadFile(upFile)
	if err != nil {
		return nil // the records check reports a missing UPSTREAM
	}
	u, _ := records.ParseUpstream(data)
	var sources []records.Field
	for _, f := range u.Fields {
		if (f.Key == "source" || strings.HasPrefix(f.Key, "vendored")) && f.Value != "" {
			sources = append(sources, f)
		}
	}
	if len(sources) == 0 {
		return nil
	}
	name := c.Notice
	if name == "" {
		name = "NOTICE"
	}
	noticeFile := filepath.Join(c.Root, name)
	notice, err := os.ReadFile(noticeFile)
	if err != nil {
		return []Finding{{File: noticeFile, Message: fmt.Sprintf("cannot read NOTICE: %v", err),
			Fix: "create NOTICE naming each vendored source and its licence"}}
	}
	var fs []Finding
	for _, s := range sources {
		if !namesSource(string(notice), s.Value) {
			fs = append(fs, Finding{File: noticeFile, Message: fmt.Sprintf("NOTICE does not name %s (UPSTREAM line %d, %s)", s.Value, s.Line, s.Key),
				Fix: "add the source, its copyright holder and licence to NOTICE"})
		}
	}
	return fs
}

// namesSource reports whether notice mentions a source by URL or owner/repo.
func namesSource(notice, source string) bool {
	src := strings.TrimSuffix(strings.TrimSuffix(source, "/"), ".git")
	if strings.Contains(notice, src) {
		return true
	}
	if m := ownerRepoFromURL.FindStringSubmatch(source); m != nil {
		return strings.Contains(notice, m[1])
	}
	return false
}
