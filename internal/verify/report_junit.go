package verify

import (
	"context"
	"encoding/xml"
	"strings"
)

// The JUnit XML subset every CI system reads: one suite, one test case per
// check, <failure> with the findings as text, <skipped> with the reason.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	Classname string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes rs as a JUnit XML report to path (see writeReport).
func WriteJUnit(ctx context.Context, path string, rs []Result) error {
	s := junitSuite{Name: "mlxbuild verify", Tests: len(rs)}
	var n counts
	for _, r := range rs {
		n.add(r.Status)
		c := junitCase{Name: r.Check, Classname: "mlxbuild.verify"}
		switch r.Status {
		case Fail:
			var b strings.Builder
			for _, f := range r.Findings {
				writeFinding(&b, f, "")
			}
			c.Failure = &junitMessage{Message: summarize(r), Text: b.String()}
		case Skip:
			c.Skipped = &junitMessage{Message: r.Reason}
		case NotRun:
			// A gate check that could not run fails the suite: CI must
			// not read it as a pass or an optional skip.
			c.Failure = &junitMessage{Message: "not run: " + r.Reason, Text: r.Reason + "\n"}
		}
		s.Cases = append(s.Cases, c)
	}
	s.Failures, s.Skipped = n.fail+n.notRun, n.skip
	data, err := xml.MarshalIndent(junitSuites{Suites: []junitSuite{s}}, "", "  ")
	if err != nil {
		return err
	}
	return writeReport(ctx, path, append([]byte(xml.Header), append(data, '\n')...))
}
