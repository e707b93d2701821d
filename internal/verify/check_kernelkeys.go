package verify

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// KernelKeys checks custom-kernel launches (check 4). MLX's GPU backends
// cache a JIT-compiled custom kernel by its name and template arguments, so
// a kernel launched with inputs of a second dtype silently reuses the module
// compiled for the first unless the dtype is among the template arguments.
//
// The check finds every call of a kernel factory (`cuda_kernel(`,
// `hip_kernel(`, `metal_kernel(`, qualified or not, outside comments and
// strings, declarations excluded), follows the kernel it makes to its
// launches in the same file, and requires each launch's template_args (the
// sixth argument of the CustomKernelFunction call) to hold an input dtype:
// a `.dtype()` call or a name containing `dtype` (see docs/notes/verify.md
// for how kernels are followed). The files that hold call sites are the
// scope; Files and Count declare it, so a file entering or leaving scope
// fails until the declaration follows.
//
// It also follows the implementation: every module cache look-up
// (get_jit_module) must key the module by what its source depends on (see
// check_modulecache.go).
type KernelKeys struct {
	// Root is the directory the scope is searched in (the tree or an overlay).
	Root string
	// Include lists globs of files to search; default: C++, CUDA, HIP and
	// Objective-C++ sources and headers.
	Include []string
	// Exclude lists globs of files to leave out of the search.
	Exclude []string
	// Files is the declared scope: every file under Root with a call site.
	Files []string
	// Count is the declared number of files in scope.
	Count int
	// Launches is how launches are found: "follow" (the default) follows
	// each factory call to its launches in the same file; "initializers"
	// is the engine's rule for kernels reached through holders and port
	// tables: in a file that calls cuda_kernel( or hip_kernel(, every
	// template_args initializer names an input dtype (see
	// check_kernelkeys_init.go). The scope is then the files that call
	// those two.
	Launches string
}

// DefaultSourceGlobs are the files C++ source checks search by default.
var DefaultSourceGlobs = []string{"**/*.{c,cc,cpp,cxx,h,hh,hpp,cu,cuh,hip,mm,metal}"}

var kernelFactories = map[string]bool{"cuda_kernel": true, "hip_kernel": true, "metal_kernel": true}

// runtimeDtype matches an expression that reads a dtype at run time.
var runtimeDtype = lazyregexp.New(`(?i)\.\s*dtype\s*\(\s*\)|\b\w*dtype\w*\b`)

// launchArgs is the number of parameters of MLX's CustomKernelFunction
// (inputs, output_shapes, output_dtypes, grid, threadgroup, template_args,
// init_value, verbose, stream); a call with at least templateArgIndex+1
// arguments to a kernel is a launch.
const templateArgIndex = 5

// Name is the check's name in reports.
func (KernelKeys) Name() string { return "kernel_keys" }

// Run searches the scope and checks every launch.
func (c KernelKeys) Run(ctx context.Context) Result {
	files, bad := selectSources(c.Name(), c.Root, c.Include, c.Exclude)
	if bad != nil {
		return result(c.Name(), bad, "")
	}
	var fs []Finding
	var scope []string
	if c.Launches != "" && c.Launches != "follow" && c.Launches != "initializers" {
		return result(c.Name(), []Finding{{Message: fmt.Sprintf("launches: %q is not follow or initializers", c.Launches),
			Fix: "set launches: follow (overlay sources) or initializers (an engine's holders and port tables)"}}, "")
	}
	sites, caches, inits := 0, 0, 0
	declared := map[string]bool{}
	for _, f := range c.Files {
		declared[strings.TrimPrefix(f, "./")] = true
	}
	for _, rel := range files {
		if ctx.Err() != nil {
			return skipped(c.Name(), "stopped: "+ctx.Err().Error())
		}
		src, err := os.ReadFile(display(c.Root, rel))
		if err != nil {
			fs = append(fs, Finding{File: display(c.Root, rel), Message: fmt.Sprintf("cannot read: %v", err), Fix: "check permissions"})
			continue
		}
		var n int
		var ffs []Finding
		if c.Launches == "initializers" {
			var k int
			n, k, ffs = checkTemplateArgInits(display(c.Root, rel), src)
			inits += k
		} else {
			n, ffs = checkKernelKeys(display(c.Root, rel), src)
		}
		m, mfs := checkModuleCache(display(c.Root, rel), src)
		// A file pinned in files: is in scope when the check reads anything
		// in it: call sites, or the module cache look-ups the JIT-key rule
		// checks (custom_kernel.cpp defines hip_kernel and calls none).
		if n > 0 || m > 0 && declared[rel] {
			scope = append(scope, rel)
			sites += n
		}
		fs = append(fs, ffs...)
		caches += m
		fs = append(fs, mfs...)
	}
	// The scope is pinned only where files: or count: pins it; undeclared,
	// the check reads what it finds.
	if len(c.Files) > 0 || c.Count > 0 {
		fs = append(fs, scopeFindings(c.Root, scope, c.Files, c.Count, "kernel_keys")...)
	}
	if c.Launches == "initializers" {
		return result(c.Name(), fs, fmt.Sprintf("%s in %s with %s, %s", plural.Count(inits, "template_args initializer"), plural.Count(len(scope), "file"), plural.Count(sites, "cuda_kernel/hip_kernel call site"), plural.Count(caches, "module cache look-up")))
	}
	return result(c.Name(), fs, fmt.Sprintf("%s in %s, %s", plural.Count(sites, "call site"), plural.Count(len(scope), "file"), plural.Count(caches, "module cache look-up")))
}

// scopeFindings compares the files found in scope with the declaration.
func scopeFindings(root string, found, declared []string, count int, check string) []Finding {
	var fs []Finding
	isDeclared := map[string]bool{}
	for _, f := range declared {
		isDeclared[strings.TrimPrefix(f, "./")] = true
	}
	isFound := map[string]bool{}
	for _, f := range found {
		isFound[f] = true
		if !isDeclared[f] {
			fs = append(fs, Finding{File: display(root, f), Message: "entered scope: this file has call sites but is not declared",
				Fix: fmt.Sprintf("add %q to files: of the %s check and raise count: to %d", f, check, len(found))})
		}
	}
	var gone []string
	for f := range isDeclared {
		if !isFound[f] {
			gone = append(gone, f)
		}
	}
	sort.Strings(gone)
	for _, f := range gone {
		fs = append(fs, Finding{File: display(root, f), Message: "left scope: declared, but has no call sites (or does not exist)",
			Fix: fmt.Sprintf("remove %q from files: of the %s check and lower count: to %d", f, check, len(found))})
	}
	if count != len(found) {
		fs = append(fs, Finding{Message: fmt.Sprintf("%s declares count: %d but %d files are in scope under %s", check, count, len(found), root),
			Fix: fmt.Sprintf("set count: %d once the files: list is right", len(found))})
	}
	return fs
}

// binding is a name through which a kernel can be launched, valid in the
// token range [from, to).
type binding struct {
	name     string
	from, to int
}

// checkKernelKeys returns the number of factory call sites in src and a
// finding for each launch without an input dtype and each kernel whose
// launch it cannot find.
func checkKernelKeys(file string, src []byte) (int, []Finding) {
	toks := tokenize(blankCpp(src, true))
	starts := lineStarts(src)
	line := func(i int) int { return lineAt(starts, toks[i].off) }
	var fs []Finding
	sites := 0
	for i := 0; i+1 < len(toks); i++ {
		q, ok := factoryCall(toks, i)
		if !ok {
			continue
		}
		sites++
		closeIdx := matching(toks, i+1)
		if closeIdx < 0 {
			continue
		}
		factory := toks[i].text
		var launches [][2]int // (launch name index, template-arg range start) pairs
		var args [][][2]int
		// Launched on the spot: metal_kernel(...)(inputs, ...).
		if closeIdx+1 < len(toks) && toks[closeIdx+1].text == "(" {
			if end := matching(toks, closeIdx+1); end > 0 {
				if a := splitArgs(toks, closeIdx+1, end); len(a) > templateArgIndex {
					launches = append(launches, [2]int{closeIdx + 1, end})
					args = append(args, a)
				}
			}
		}
		for _, b := range kernelBindings(toks, q, closeIdx) {
			for k := b.from; k < b.to && k+1 < len(toks); k++ {
				if toks[k].text != b.name || toks[k+1].text != "(" || (k > 0 && (toks[k-1].text == "." || toks[k-1].text == "->")) {
					continue
				}
				open := k + 1
				end := matching(toks, open)
				if end < 0 {
					continue
				}
				a := splitArgs(toks, open, end)
				// A function returning the kernel: make()(inputs, ...).
				if len(a) == 0 && end+1 < len(toks) && toks[end+1].text == "(" {
					open = end + 1
					if end = matching(toks, open); end < 0 {
						continue
					}
					a = splitArgs(toks, open, end)
				}
				if len(a) > templateArgIndex {
					launches = append(launches, [2]int{k, end})
					args = append(args, a)
				}
			}
		}
		if len(launches) == 0 {
			fs = append(fs, Finding{File: file, Line: line(i),
				Message: fmt.Sprintf("the kernel this %s( call makes is never launched in this file, so its template_args cannot be checked", factory),
				Fix:     "launch it in the same file (through the variable or function it is returned by), or exclude the file and check its launches by hand"})
			continue
		}
		for li, l := range launches {
			ta := args[li][templateArgIndex]
			text := tokenText(toks, ta[0], ta[1])
			if runtimeDtype.MatchString(text) || (ta[1] == ta[0]+1 && toks[ta[0]].isIdent() && varHasDtype(toks, toks[ta[0]].text, l[0])) {
				continue
			}
			fs = append(fs, Finding{File: file, Line: line(ta[0]),
				Message: fmt.Sprintf("launch of the %s from line %d has no input dtype in its template_args (%s): the JIT cache keys on name + template args, so a second dtype would reuse the first one's module", factory, line(i), clipText(text)),
				Fix:     `add the input's dtype, e.g. {{"T", x.dtype()}}`})
		}
	}
	return sites, fs
}

// isDeclarationLead reports whether a token before a factory's name makes it
// a declaration or definition (`CustomKernelFunction cuda_kernel(`).
func isDeclarationLead(t token) bool {
	switch t.text {
	case "return", "co_return", "case", "else", "do":
		return false
	}
	return t.isIdent() || t.text == ">" || t.text == "&" || t.text == "*"
}

// kernelBindings returns the names the kernel made by the factory call at
// [start, end] can be launched through: the variable it initializes or is
// assigned to, the function or lambda-initialized variable that returns it,
// and, transitively, names assigned from those or functions returning them.
func kernelBindings(toks []token, start, end int) []binding {
	var out []binding
	seen := map[string]bool{}
	var add func(b binding)
	add = func(b binding) {
		key := fmt.Sprintf("%s@%d", b.name, b.from)
		if b.name == "" || seen[key] {
			return
		}
		seen[key] = true
		out = append(out, b)
		// Aliases: `Y = name;`, `Y = name();`, `Y{name}`, `return name;`.
		for k := b.from; k < b.to && k < len(toks); k++ {
			if toks[k].text != b.name || k == 0 {
				continue
			}
			after := k + 1
			if after+1 < len(toks) && toks[after].text == "(" && toks[after+1].text == ")" {
				after += 2
			}
			if after >= len(toks) || (toks[after].text != ";" && toks[after].text != "}") {
				continue
			}
			if nb, ok := boundTo(toks, k); ok {
				add(nb)
			}
		}
	}
	if b, ok := boundTo(toks, start); ok {
		add(b)
	}
	_ = end
	return out
}

// boundTo finds the name the expression starting at token i is bound to.
func boundTo(toks []token, i int) (binding, bool) {
	if i == 0 {
		return binding{}, false
	}
	prev := toks[i-1].text
	switch {
	case (prev == "=" || prev == "{" || prev == "(") && i >= 2 && toks[i-2].isIdent():
		declared := prev != "=" || (i >= 3 && isDeclarationLead(toks[i-3]))
		if !declared {
			// An assignment to a variable declared elsewhere (a static set
			// inside std::call_once's lambda): its scope is unknown here,
			// so follow the name through the whole file.
			return binding{name: toks[i-2].text, from: 0, to: len(toks)}, true
		}
		return varBinding(toks, i-2), true
	case prev == "return" || prev == "co_return":
		return returnBinding(toks, i-1)
	}
	return binding{}, false
}

// varBinding is the variable named at i, valid to the end of its block.
func varBinding(toks []token, i int) binding {
	to := len(toks)
	if open := enclosingBrace(toks, i); open >= 0 {
		if cl := matching(toks, open); cl > 0 {
			to = cl
		}
	}
	// A lambda's capture or a class member may launch it before this point
	// in the block; searching from the block's start keeps those.
	from := 0
	if open := enclosingBrace(toks, i); open >= 0 {
		from = open
	}
	return binding{name: toks[i].text, from: from, to: to}
}

// returnBinding finds what a `return` at i returns from: a named function
// (launched as name()(...), valid in the whole file) or a lambda that
// initializes a variable (`auto k = [] { return ...; }();`).
func returnBinding(toks []token, i int) (binding, bool) {
	open := enclosingBrace(toks, i)
	for open >= 0 {
		j := open - 1
		for j >= 0 && (toks[j].text == "const" || toks[j].text == "mutable" || toks[j].text == "noexcept" || toks[j].text == "override") {
			j--
		}
		if j >= 0 && toks[j].text == ")" {
			j = matchingBack(toks, j) - 1
		}
		if j >= 0 && toks[j].text == "]" {
			// A lambda: bound to the variable it initializes, if any.
			lb := matchingBack(toks, j)
			if lb >= 2 && (toks[lb-1].text == "=" || toks[lb-1].text == "{") && toks[lb-2].isIdent() {
				return varBinding(toks, lb-2), true
			}
			return binding{}, false
		}
		if j >= 0 && toks[j].isIdent() && !isControl(toks[j].text) {
			return binding{name: toks[j].text, from: 0, to: len(toks)}, true
		}
		if j >= 0 && isControl(toks[j].text) || (j >= 0 && toks[j].text == ")") {
			// The return sits in an if/for/while block: look further out.
			open = enclosingBrace(toks, open)
			continue
		}
		return binding{}, false
	}
	return binding{}, false
}

func isControl(s string) bool {
	switch s {
	case "if", "for", "while", "switch", "else", "do", "try", "catch":
		return true
	}
	return false
}

// varHasDtype reports whether a template-args variable gets an input dtype
// in a statement before the launch at `before`: its initializer, an
// assignment or a push_back/emplace_back.
func varHasDtype(toks []token, name string, before int) bool {
	for k := 0; k < before; k++ {
		if toks[k].text != name {
			continue
		}
		end := k
		for end < before && toks[end].text != ";" {
			end++
		}
		if runtimeDtype.MatchString(tokenText(toks, k+1, end)) {
			return true
		}
	}
	return false
}

// tokenText joins tokens [from, to) with spaces.
func tokenText(toks []token, from, to int) string {
	var b strings.Builder
	for k := from; k < to; k++ {
		if k > from {
			b.WriteByte(' ')
		}
		b.WriteString(toks[k].text)
	}
	return b.String()
}

func clipText(s string) string {
	if s == "" {
		return "empty"
	}
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}
