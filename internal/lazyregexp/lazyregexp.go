// Package lazyregexp holds regular expressions compiled on their first use
// instead of at package initialization. mlxbuild's packages declare dozens
// of expressions at package level (verify's checks, CMake's diagnostics,
// the records' parsers); compiled eagerly, every start of the binary paid
// for all of them (about 1 ms of a 5 ms no-op start, GODEBUG=inittrace=1),
// although a no-op build uses a handful. The methods are the *regexp.Regexp
// methods mlxbuild calls; a pattern that does not compile still panics, on
// its first use, with regexp's own message.
package lazyregexp

import (
	"regexp"
	"sync"
)

// Regexp is a regular expression compiled on first use. It is safe for
// concurrent use, like *regexp.Regexp.
type Regexp struct {
	re func() *regexp.Regexp
}

// New returns the lazily compiled expr.
func New(expr string) *Regexp {
	return &Regexp{re: sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })}
}

// Regexp is the compiled expression.
func (r *Regexp) Regexp() *regexp.Regexp { return r.re() }

func (r *Regexp) String() string                 { return r.re().String() }
func (r *Regexp) Match(b []byte) bool            { return r.re().Match(b) }
func (r *Regexp) MatchString(s string) bool      { return r.re().MatchString(s) }
func (r *Regexp) FindString(s string) string     { return r.re().FindString(s) }
func (r *Regexp) FindSubmatch(b []byte) [][]byte { return r.re().FindSubmatch(b) }
func (r *Regexp) FindStringSubmatch(s string) []string {
	return r.re().FindStringSubmatch(s)
}
func (r *Regexp) FindStringSubmatchIndex(s string) []int {
	return r.re().FindStringSubmatchIndex(s)
}
func (r *Regexp) FindAllIndex(b []byte, n int) [][]int { return r.re().FindAllIndex(b, n) }
func (r *Regexp) FindAllString(s string, n int) []string {
	return r.re().FindAllString(s, n)
}
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}
func (r *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	return r.re().FindAllStringSubmatchIndex(s, n)
}
func (r *Regexp) FindAllSubmatch(b []byte, n int) [][][]byte {
	return r.re().FindAllSubmatch(b, n)
}
func (r *Regexp) FindAllSubmatchIndex(b []byte, n int) [][]int {
	return r.re().FindAllSubmatchIndex(b, n)
}
func (r *Regexp) ReplaceAllString(src, repl string) string {
	return r.re().ReplaceAllString(src, repl)
}
