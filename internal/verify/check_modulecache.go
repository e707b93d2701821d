package verify

import (
	"fmt"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// Module caches (part of the kernel_keys check). A custom kernel's launch
// keys are only half of the story: the backend's implementation compiles
// the generated source into a module and caches it under a key. The ROCm
// fork's custom_kernel.cpp keys it by the kernel's name, which is name +
// template_arguments_hash(template_args), while the source it generates
// declares each input with the input's dtype and leaves out the shape
// parameters of a scalar input. A second launch with other input dtypes or
// a scalar where there was an array gets the first launch's module: wrong
// reads, no error. Upstream CUDA keys the module by a hash of the source
// (ml-explore/mlx#4273), so a key that hashes the source passes.

// moduleCacheCalls are the functions that look a compiled module up by a
// key (the second argument) and build it on a miss.
var moduleCacheCalls = map[string]int{"get_jit_module": 1}

var (
	// sourceHashRE is a key that hashes the generated source.
	sourceHashRE = lazyregexp.New(`(?i)\bhash\b.*\w*source\w*|\w*source\w*.*\bhash\b`)
	dtypeReadRE  = lazyregexp.New(`\.\s*dtype\s*\(\s*\)`)
	scalarTestRE = lazyregexp.New(`\.\s*ndim\s*\(\s*\)|\bis_scalar\b|\.\s*size\s*\(\s*\)\s*==\s*1\b`)
)

// checkModuleCache returns the number of module cache look-ups in src and a
// finding for each whose key misses what the cached source depends on.
func checkModuleCache(file string, src []byte) (int, []Finding) {
	code := blankCpp(src, true)
	toks := tokenize(code)
	starts := lineStarts(src)
	line := func(i int) int { return lineAt(starts, toks[i].off) }
	var fs []Finding
	calls := 0
	for i := 0; i+1 < len(toks); i++ {
		keyArg, ok := moduleCacheCalls[toks[i].text]
		if !ok || toks[i+1].text != "(" || (i > 0 && isDeclarationLead(toks[i-1])) {
			continue
		}
		end := matching(toks, i+1)
		if end < 0 {
			continue
		}
		args := splitArgs(toks, i+1, end)
		if len(args) <= keyArg {
			continue
		}
		calls++
		key := tokenText(toks, args[keyArg][0], args[keyArg][1])
		keyed := key
		if a := args[keyArg]; a[1] == a[0]+1 && toks[a[0]].isIdent() {
			keyed += " " + localInit(toks, toks[a[0]].text, i)
		}
		if sourceHashRE.MatchString(keyed) {
			continue
		}
		dtypeLine, scalarLine := sourceDependencies(toks, line)
		nameLine, nameHasDtype := kernelNameKey(toks, line)
		var deps []string
		if dtypeLine > 0 && !nameHasDtype {
			deps = append(deps, fmt.Sprintf("each input's dtype (line %d)", dtypeLine))
		}
		if scalarLine > 0 {
			deps = append(deps, fmt.Sprintf("whether each input is a scalar (line %d)", scalarLine))
		}
		if len(deps) == 0 {
			continue
		}
		by := fmt.Sprintf("by %s", clipText(key))
		if nameLine > 0 {
			by += fmt.Sprintf(", the kernel name made at line %d from name + template args", nameLine)
		}
		fs = append(fs, Finding{File: file, Line: line(i),
			Message: fmt.Sprintf("%s caches the compiled module %s, but the source it compiles depends on %s: a launch with other input dtypes or a scalar input reuses the first launch's module", toks[i].text, by, strings.Join(deps, " and ")),
			Fix:     `key the module by a hash of the source, as upstream CUDA does (ml-explore/mlx#4273): fmt::format("{}_{:x}", name_, std::hash<std::string>{}(source_))`})
	}
	return calls, fs
}

// localInit returns the text of the statements before token `before` that
// give name its value (`auto name = ...;`, `name = ...;`), so a key held in
// a local variable is judged by what it holds.
func localInit(toks []token, name string, before int) string {
	var b strings.Builder
	for k := 0; k+1 < before; k++ {
		if toks[k].text != name || (toks[k+1].text != "=" && toks[k+1].text != "{" && toks[k+1].text != "(") {
			continue
		}
		end := k
		for end < before && toks[end].text != ";" {
			end++
		}
		b.WriteString(tokenText(toks, k+1, end) + " ")
	}
	return b.String()
}

// sourceDependencies finds, in the statements that append to generated
// source (a variable or stream named *source*, written with << or +=), the
// first that writes an input's dtype, and the first condition on an input
// being a scalar that guards such a statement.
func sourceDependencies(toks []token, line func(int) int) (dtypeLine, scalarLine int) {
	for k := 0; k+1 < len(toks); k++ {
		if !strings.Contains(strings.ToLower(toks[k].text), "source") || !toks[k].isIdent() || (toks[k+1].text != "<<" && toks[k+1].text != "<" && toks[k+1].text != "+") {
			continue
		}
		end := k
		for end < len(toks) && toks[end].text != ";" {
			end++
		}
		if dtypeLine == 0 && dtypeReadRE.MatchString(tokenText(toks, k, end)) {
			dtypeLine = line(k)
		}
		if scalarLine == 0 {
			for _, c := range enclosingConditions(toks, k) {
				if scalarTestRE.MatchString(tokenText(toks, c, matching(toks, c))) {
					scalarLine = line(c)
					break
				}
			}
		}
	}
	return dtypeLine, scalarLine
}

// enclosingConditions returns the indices of the `(` of the if statements
// whose blocks hold token i, innermost first.
func enclosingConditions(toks []token, i int) []int {
	var out []int
	for open := enclosingBrace(toks, i); open > 0; open = enclosingBrace(toks, open) {
		if toks[open-1].text != ")" {
			continue
		}
		if lp := matchingBack(toks, open-1); lp > 0 && toks[lp-1].text == "if" {
			out = append(out, lp)
		}
	}
	return out
}

// kernelNameKey finds where the kernel's name is made from
// template_arguments_hash(...) and whether that name, or what is appended
// to it, also carries the input dtypes (as Metal's does).
func kernelNameKey(toks []token, line func(int) int) (nameLine int, hasDtype bool) {
	for k := 0; k < len(toks); k++ {
		if toks[k].text != "template_arguments_hash" || k+1 >= len(toks) || toks[k+1].text != "(" || (k > 0 && isDeclarationLead(toks[k-1])) {
			continue
		}
		from := k
		for from > 0 && toks[from-1].text != ";" && toks[from-1].text != "{" && toks[from-1].text != "}" {
			from--
		}
		end := k
		for end < len(toks) && toks[end].text != ";" {
			end++
		}
		nameLine = line(k)
		stmt := tokenText(toks, from, end)
		hasDtype = dtypeReadRE.MatchString(stmt)
		// `name += get_type_string(in.dtype())` after it.
		if from < len(toks) && toks[from].isIdent() {
			v := toks[from].text
			if v == "std" || v == "auto" || v == "const" {
				for j := from; j < k; j++ {
					if toks[j].text == "=" && j > 0 {
						v = toks[j-1].text
						break
					}
				}
			}
			hasDtype = hasDtype || appendsDtype(toks, v, end)
		}
		return nameLine, hasDtype
	}
	return 0, false
}

// appendsDtype reports whether a statement after `from` appends an input
// dtype to the variable name (`name += ... .dtype() ...;`).
func appendsDtype(toks []token, name string, from int) bool {
	for k := from; k+2 < len(toks); k++ {
		if toks[k].text != name || toks[k+1].text != "+" || toks[k+2].text != "=" {
			continue
		}
		end := k
		for end < len(toks) && toks[end].text != ";" {
			end++
		}
		if dtypeReadRE.MatchString(tokenText(toks, k, end)) {
			return true
		}
	}
	return false
}
