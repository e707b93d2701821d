package cmake

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Durations are how long edges took, by the output Ninja logs for them
// (relative to the build directory, as in build.ninja).
type Durations map[string]time.Duration

// recordHeader starts a duration record; the version is the format's.
const recordHeader = "mlxbuild edge durations v1"

// A duration record keeps a build's edge durations for the next first
// build elsewhere (another build directory, a new checkout), with the
// identity of what compiled them: the compiler and the architecture list.
// Times from another compiler or other targets say nothing about this one.
//
//	mlxbuild edge durations v1
//	identity <text without newline>
//	<milliseconds>\t<output>
//	...
type Record struct {
	Identity  string
	Durations Durations
}

// WriteRecord writes r in the record format, outputs sorted so the same
// durations give the same bytes.
func WriteRecord(w io.Writer, r Record) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s\nidentity %s\n", recordHeader, oneLine(r.Identity))
	outs := make([]string, 0, len(r.Durations))
	for o := range r.Durations {
		if o != "" && !strings.ContainsAny(o, "\t\n\r") {
			outs = append(outs, o)
		}
	}
	slices.Sort(outs)
	for _, o := range outs {
		fmt.Fprintf(bw, "%d\t%s\n", r.Durations[o].Milliseconds(), o)
	}
	return bw.Flush()
}

func oneLine(s string) string { return strings.NewReplacer("\n", " ", "\r", " ").Replace(s) }

// ParseRecord reads a duration record. Any damage refuses the whole record
// with an error naming the line (name:line: why): a half-read record would
// order a build by half the truth, and the caller ignores it with one
// warning, never failing the build.
func ParseRecord(name string, data []byte) (Record, error) {
	r := Record{Durations: Durations{}}
	s := bufio.NewScanner(bytes.NewReader(data))
	s.Buffer(make([]byte, 0, 64*1024), 1<<20)
	n := 0
	bad := func(why string) (Record, error) {
		return Record{}, fmt.Errorf("%s:%d: %s", name, n, why)
	}
	for s.Scan() {
		n++
		l := s.Text()
		switch {
		case n == 1:
			if l != recordHeader {
				return bad(fmt.Sprintf("not a duration record (the first line is not %q)", recordHeader))
			}
		case n == 2:
			id, ok := strings.CutPrefix(l, "identity ")
			if !ok || id == "" {
				return bad(`want "identity <compiler and architectures>"`)
			}
			r.Identity = id
		default:
			ms, out, ok := strings.Cut(l, "\t")
			v, err := strconv.ParseInt(ms, 10, 64)
			if !ok || out == "" || strings.ContainsAny(out, "\t\r") || err != nil || v < 0 || v > int64(1<<40) {
				return bad(`want "<milliseconds><tab><output>"`)
			}
			r.Durations[out] = time.Duration(v) * time.Millisecond
		}
	}
	if err := s.Err(); err != nil {
		return bad(err.Error())
	}
	if n < 2 {
		n++
		return bad("the record ends before its identity line")
	}
	return r, nil
}
