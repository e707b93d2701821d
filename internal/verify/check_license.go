package verify

import (
	"context"
	"fmt"
	"os"
	"regexp"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// LicenseHeaders checks that every owned source of a repository carries a
// licence header near its top (the reference engine's Apache 2.0 header,
// checked by its insert_apache_header.py --check). Vendored files keep
// their own header and are skipped; a file that already states another
// provenance (a Copyright or SPDX line) passes, as the reference's writer
// would leave it alone.
type LicenseHeaders struct {
	// Root is the directory searched, usually the repository.
	Root string `yaml:"root" required:"true"`
	// Files lists globs of owned sources; default DefaultLicenseGlobs.
	Files []string `yaml:"files"`
	// Vendored lists globs of copied files, which are skipped.
	Vendored []string `yaml:"vendored"`
	// Exclude lists other globs to leave out.
	Exclude []string `yaml:"exclude"`
	// Header is a regular expression one of the first HeaderLines lines
	// must match; default DefaultLicenseHeader.
	Header string `yaml:"header"`
	// HeaderLines is how far into a file the header may start; default 40.
	HeaderLines int `yaml:"header_lines"`
}

// DefaultLicenseGlobs are the reference engine's owned sources: Rust and
// C++ under src, examples, tests and benches, and the crate's build.rs.
var DefaultLicenseGlobs = []string{"{src,examples,tests,benches}/**/*.{rs,cpp,h}", "build.rs"}

// DefaultLicenseHeader is what counts as a header: the Apache licence line
// or any other provenance (Copyright, SPDX).
const DefaultLicenseHeader = `Licensed under the Apache License, Version 2\.0|SPDX-License-Identifier:|\bCopyright\b`

// Name is the check's name in reports.
func (LicenseHeaders) Name() string { return "license_headers" }

// Run checks every owned source under Root.
func (c LicenseHeaders) Run(ctx context.Context) Result {
	files := c.Files
	if len(files) == 0 {
		files = DefaultLicenseGlobs
	}
	header := c.Header
	if header == "" {
		header = DefaultLicenseHeader
	}
	re, err := regexp.Compile(header)
	if err != nil {
		return result(c.Name(), []Finding{{Message: fmt.Sprintf("header: %q is not a regular expression: %v", header, err), Fix: "correct header: of the license_headers check"}}, "")
	}
	lines := c.HeaderLines
	if lines <= 0 {
		lines = 40
	}
	selected, err := selectFiles(c.Root, files, append(append([]string{}, c.Exclude...), c.Vendored...))
	if err != nil {
		return result(c.Name(), []Finding{{File: c.Root, Message: fmt.Sprintf("cannot search: %v", err), Fix: "check the root: of the license_headers check"}}, "")
	}
	var fs []Finding
	for _, rel := range selected {
		file := display(c.Root, rel)
		data, err := os.ReadFile(file)
		if err != nil {
			fs = append(fs, Finding{File: file, Message: fmt.Sprintf("cannot read: %v", err), Fix: "check permissions"})
			continue
		}
		if !hasHeader(data, re, lines) {
			fs = append(fs, Finding{File: file, Line: 1, Message: fmt.Sprintf("no licence header in the first %d lines", lines),
				Fix: "add the project's licence header at the top, or list the file under vendored: if it was copied from elsewhere"})
		}
	}
	if len(selected) == 0 {
		fs = append(fs, Finding{Message: fmt.Sprintf("no file under %s matches %s", c.Root, strings.Join(files, ", ")),
			Fix: "correct files: (or root:) of the license_headers check"})
	}
	return result(c.Name(), fs, plural.Count(len(selected), "owned file"))
}

// hasHeader reports whether one of the first lines of data matches re.
func hasHeader(data []byte, re *regexp.Regexp, lines int) bool {
	head := strings.SplitN(string(data), "\n", lines+1)
	if len(head) > lines {
		head = head[:lines]
	}
	return re.MatchString(strings.Join(head, "\n"))
}
