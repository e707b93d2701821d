package verify

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// KernelPorts checks an engine's kernel-port dispatch: a fused kernel that
// has ports for some backends (Metal, CUDA, ROCm) declares them in one port
// table, and both its launch and its support predicate read that table, so
// a backend without a port gets a refusal or a fallback, never another
// backend's port. The reference engine learned each rule from a defect:
// `use_cuda ? cuda_port : metal_port` sent ROCm to the Metal port; refusals
// written by hand at each launcher drifted; a predicate answered from
// cu::is_available() while its launcher read another test; Rust gates
// spelled `metal_is_available() || cuda_is_available()` invite "add rocm"
// past the table.
//
// In every launcher source (a file that calls metal_kernel(, cuda_kernel(
// or hip_kernel(), helpers left out:
//
//  1. no port chosen by testing the backend (`gpu_kernel_backend() ==`,
//     `metal::is_available()`, `cu::is_available()`, ...);
//  2. no hand-written refusal (`if (!custom_kernels_available())`);
//  3. no kernel holder reached directly (`get_x_kernel().get()`) outside a
//     port table (`KernelPorts& name() { ... }`);
//  4. every support predicate (`bool x_available(`) reads its table
//     through has_kernel_port(.
//
// And in every Rust source: no gate that enumerates the backends with
// ports (`metal_is_available() || cuda_is_available()`, either order, or
// `!a && !b`): a gate reads the kernel's own predicate, or
// gpu_backend_available() for "is there a GPU".
//
// The reference's rules 5 and 6, on the ROCm wavefront: a port table marked
// `.rocm_any_wave_size = true` launches no HIP kernel that works across
// lanes; set_rocm_port_warp_size_for_tests is called from tests only.
type KernelPorts struct {
	// Root is the directory searched, usually the repository.
	Root string `yaml:"root" required:"true"`
	// Launchers lists globs of C++ sources; default: DefaultSourceGlobs.
	Launchers []string `yaml:"launchers"`
	// Helpers lists globs of the port helper's own sources, which may test
	// the backend (kernel_port.cpp, gpu_backend.cpp).
	Helpers []string `yaml:"helpers"`
	// Rust lists globs of Rust sources with gates; default: all .rs files.
	Rust []string `yaml:"rust"`
	// Exclude lists globs left out of both (vendored code, fixtures).
	Exclude []string `yaml:"exclude"`
}

var (
	launchRE        = lazyregexp.New(`\b(?:metal|cuda|hip)_kernel\s*\(`)
	backendTestRE   = lazyregexp.New(`\bgpu_kernel_backend\s*\(\s*\)\s*[!=]=|\b(?:metal|cu|cuda|rocm)\s*::\s*is_available\s*\(\s*\)`)
	handRefusalRE   = lazyregexp.New(`\bif\s*\(\s*!\s*(?:\w+\s*::\s*)*custom_kernels_available\s*\(\s*\)\s*\)`)
	directHolderRE  = lazyregexp.New(`\bget_\w*kernel\w*\s*\([^()]*\)\s*\.\s*get\s*\(`)
	portTableRE     = lazyregexp.New(`KernelPorts\s*&\s*\w+\s*\(\s*\)\s*\{`)
	predicateRE     = lazyregexp.New(`\bbool\s+(\w+_available)\s*\([^;{)]*\)\s*(?:noexcept\s*)?\{`)
	rustMetalRE     = `(?:(?:crate|mlxcel_core|ffi|self|super)::)*metal_is_available\(\)`
	rustCudaRE      = `(?:(?:crate|mlxcel_core|ffi|self|super)::)*cuda_is_available\(\)`
	rustJoinRE      = `\s*(?:\|\||&&)\s*!?\s*`
	rustEnumerateRE = lazyregexp.New(rustMetalRE + rustJoinRE + rustCudaRE + `|` + rustCudaRE + rustJoinRE + rustMetalRE)
)

// Name is the check's name in reports.
func (KernelPorts) Name() string { return "kernel_ports" }

// Run checks every launcher and Rust source under Root.
func (c KernelPorts) Run(ctx context.Context) Result {
	launchers := c.Launchers
	if len(launchers) == 0 {
		launchers = DefaultSourceGlobs
	}
	rust := c.Rust
	if len(rust) == 0 {
		rust = []string{"**/*.rs"}
	}
	all, err := walkFiles(c.Root)
	if err != nil {
		return result(c.Name(), []Finding{{File: c.Root, Message: fmt.Sprintf("cannot search: %v", err), Fix: "check the root: of the kernel_ports check"}}, "")
	}
	var fs []Finding
	nLaunchers, nRust, nPredicates := 0, 0, 0
	for _, rel := range all {
		if ctx.Err() != nil {
			return skipped(c.Name(), "stopped: "+ctx.Err().Error())
		}
		isCpp := matchAny(launchers, rel) && !matchAny(c.Helpers, rel)
		if matchAny(c.Helpers, rel) && !matchAny(c.Exclude, rel) {
			// The helpers may test the backend, but not call the test seam.
			file := display(c.Root, rel)
			if src, err := os.ReadFile(file); err == nil {
				fs = append(fs, seamCalls(file, rel, blankCpp(src, true), false)...)
			}
		}
		isRust := matchAny(rust, rel)
		if (!isCpp && !isRust) || matchAny(c.Exclude, rel) {
			continue
		}
		file := display(c.Root, rel)
		src, err := os.ReadFile(file)
		if err != nil {
			fs = append(fs, Finding{File: file, Message: fmt.Sprintf("cannot read: %v", err), Fix: "check permissions"})
			continue
		}
		if isRust {
			nRust++
			fs = append(fs, rustGates(file, src)...)
			fs = append(fs, seamCalls(file, rel, blankRustComments(src), true)...)
			continue
		}
		code := blankCpp(src, true)
		fs = append(fs, seamCalls(file, rel, code, false)...)
		if len(factoryCalls(tokenize(code))) == 0 && !launchRE.Match(code) {
			continue
		}
		nLaunchers++
		ffs, preds := portDispatch(file, src, code)
		nPredicates += preds
		fs = append(fs, ffs...)
		fs = append(fs, anyWavePorts(file, src, code)...)
	}
	sortFindings(fs)
	return result(c.Name(), fs, fmt.Sprintf("%s (%s), %s", plural.Count(nLaunchers, "launcher file"), plural.Count(nPredicates, "support predicate"), plural.Count(nRust, "Rust file")))
}

// portDispatch applies rules 1 to 4 to one launcher source (code is src
// with comments and strings blanked).
func portDispatch(file string, src, code []byte) ([]Finding, int) {
	starts := lineStarts(src)
	var fs []Finding
	add := func(off int, msg, fix string) {
		fs = append(fs, Finding{File: file, Line: lineAt(starts, off), Message: msg, Fix: fix})
	}
	// Port tables are where holders are meant to be reached.
	outside := append([]byte(nil), code...)
	for _, m := range portTableRE.FindAllIndex(code, -1) {
		if end := closingBrace(code, m[1]-1); end > 0 {
			blankRange(outside, m[0], end+1)
		}
	}
	// Predicate bodies are judged by rule 4, not rule 1.
	type body struct {
		name       string
		start, end int
	}
	var preds []body
	for _, m := range predicateRE.FindAllSubmatchIndex(code, -1) {
		if end := closingBrace(code, m[1]-1); end > 0 {
			preds = append(preds, body{string(code[m[2]:m[3]]), m[0], end})
		}
	}
	inPredicate := func(off int) bool {
		for _, p := range preds {
			if off >= p.start && off <= p.end {
				return true
			}
		}
		return false
	}
	for _, m := range backendTestRE.FindAllIndex(code, -1) {
		if inPredicate(m[0]) {
			continue
		}
		add(m[0], fmt.Sprintf("chooses a port by testing the backend (%s): a backend this test does not name takes another backend's port", strings.Join(strings.Fields(string(code[m[0]:m[1]])), "")),
			"declare the ports in a KernelPorts table and launch through select_kernel_port(entry, fallback, table)")
	}
	for _, m := range handRefusalRE.FindAllIndex(code, -1) {
		add(m[0], "refuses by hand (custom_kernels_available() test): hand-written refusals drift in wording and in the predicate they name",
			"let select_kernel_port refuse: it names the entry point, the missing port and the fallback")
	}
	for _, m := range directHolderRE.FindAllIndex(outside, -1) {
		add(m[0], fmt.Sprintf("reaches a kernel holder directly (%s), outside a port table: no port is resolved, so a backend without one gets this port", strings.Join(strings.Fields(string(outside[m[0]:m[1]])), "")+")"),
			"put the holder in the kernel's KernelPorts table and resolve it with select_kernel_port")
	}
	for _, p := range preds {
		if !strings.Contains(string(code[p.start:p.end]), "has_kernel_port") {
			add(p.start, fmt.Sprintf("support predicate %s does not read its port table: it can say yes where the launch refuses, or no where a port exists", p.name),
				fmt.Sprintf("return has_kernel_port(<the kernel's table>) from %s (and the kernel's own switches, if any)", p.name))
		}
	}
	return fs, len(preds)
}

// rustGates applies rule 5 to one Rust source, comments left out.
func rustGates(file string, src []byte) []Finding {
	code := blankRustComments(src)
	starts := lineStarts(src)
	var fs []Finding
	for _, m := range rustEnumerateRE.FindAllIndex(code, -1) {
		fs = append(fs, Finding{File: file, Line: lineAt(starts, m[0]),
			Message: "gate enumerates the backends that have ports (metal_is_available() and cuda_is_available()): a third backend reads as a missing term, and adding it widens the gate past the port table",
			Fix:     "ask the kernel's own *_available() predicate (\"has this port\"), or gpu_backend_available() (\"is there a GPU\")"})
	}
	return fs
}

// blankRustComments blanks // and /* */ comments (nested, as Rust allows;
// doc comments included) outside string literals, keeping offsets. A quote
// in Rust is also a lifetime ('a), so only double quotes open literals.
func blankRustComments(src []byte) []byte {
	out := append([]byte(nil), src...)
	n := len(src)
	for i := 0; i < n; {
		switch {
		case src[i] == '"':
			j := i + 1
			for j < n && src[j] != '"' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			i = j + 1
		case src[i] == '/' && i+1 < n && src[i+1] == '/':
			j := i
			for j < n && src[j] != '\n' {
				j++
			}
			blankRange(out, i, j)
			i = j
		case src[i] == '/' && i+1 < n && src[i+1] == '*':
			depth, j := 1, i+2
			for j < n && depth > 0 {
				switch {
				case src[j] == '/' && j+1 < n && src[j+1] == '*':
					depth++
					j += 2
				case src[j] == '*' && j+1 < n && src[j+1] == '/':
					depth--
					j += 2
				default:
					j++
				}
			}
			blankRange(out, i, min(j, n))
			i = j
		default:
			i++
		}
	}
	return out
}
