// Package lazyregexp holds regular expressions compiled on their first use
// instead of at package initialization. mlxbuild's packages declare dozens
// of expressions at package level (verify's checks, CMake's diagnostics,
// the records' parsers); compiled eagerly, every start of the binary paid
// for all of them (GODEBUG=inittrace=1 shows it; docs/benchmarks.md),
// although a no-op build uses a handful. The methods are the *regexp.Regexp
// methods mlxbuild calls; a pattern that does not compile still panics, on
// its first use, with regexp's own message.
package lazyregexp

import (
	"regexp"
	"strconv"
	"sync"
)

// Regexp is a regular expression compiled on first use. It is safe for
// concurrent use, like *regexp.Regexp. New makes one allocation (a
// sync.OnceValue made four, about 250 in all at every start).
type Regexp struct {
	expr string
	once sync.Once
	re   *regexp.Regexp
	err  error
}

// New returns expr, to be compiled on first use.
func New(expr string) *Regexp { return &Regexp{expr: expr} }

// get compiles the expression on the first call; a bad one panics on every
// use, as regexp.MustCompile would have at initialization.
func (r *Regexp) get() *regexp.Regexp {
	r.once.Do(func() { r.re, r.err = regexp.Compile(r.expr) })
	if r.err != nil {
		panic(`regexp: Compile(` + strconv.Quote(r.expr) + `): ` + r.err.Error())
	}
	return r.re
}

// Regexp is the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp { return r.get() }

func (r *Regexp) String() string                 { return r.get().String() }
func (r *Regexp) Match(b []byte) bool            { return r.get().Match(b) }
func (r *Regexp) MatchString(s string) bool      { return r.get().MatchString(s) }
func (r *Regexp) FindString(s string) string     { return r.get().FindString(s) }
func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.get().FindSubmatch(b) }
func (r *Regexp) FindStringSubmatch(s string) []string {
	return r.get().FindStringSubmatch(s)
}
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.get().FindStringSubmatchIndex(s)
}
func (r *Regexp) FindAllIndex(b []byte, n int) [][]int { return r.get().FindAllIndex(b, n) }
func (r *Regexp) FindAllString(s string, n int) []string {
	return r.get().FindAllString(s, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.get().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.get().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return r.get().FindAllSubmatch(b, n)
}
func (r *Regexp) FindAllSubmatchIndex(b []byte, n int) [][]int {
	return r.get().FindAllSubmatchIndex(b, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.get().ReplaceAllString(src, repl)
}
