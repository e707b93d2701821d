package verify

import (
	"fmt"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/lazyregexp"
)

// The engine's rule for kernel keys (KernelKeys with Launches:
// "initializers"). An engine reaches its kernels through holders and port
// tables (select_kernel_port), so a launch cannot be followed from the
// factory call; what can be checked is every template_args initializer in a
// file that makes a kernel whose cache key is name + template args
// (cuda_kernel, hip_kernel; Metal's key already carries the input dtypes):
// each must name an input dtype, inline (`{"T", x.dtype()}`) or through a
// local bound from a .dtype() in the same file (`auto T = x.dtype();`).

var (
	templateArgsInitRE = lazyregexp.New(`std\s*::\s*vector\s*<\s*std\s*::\s*pair\s*<\s*std\s*::\s*string\s*,\s*(?:[\w:]*::\s*)?TemplateArg\s*>\s*>\s*(\w+)\s*=?\s*\{`)
	dtypeLocalRE       = lazyregexp.New(`\b(?:auto|Dtype)\s*&?\s+(\w+)\s*=\s*[^;]*\.\s*dtype\s*\(\s*\)`)
	templateEntryRE    = lazyregexp.New(`\{\s*"(\w+)"\s*,\s*([^{}]+?)\s*\}`)
	keyedFactories     = map[string]bool{"cuda_kernel": true, "hip_kernel": true}
)

// checkTemplateArgInits returns the number of factory call sites whose key
// lacks the dtypes (cuda_kernel, hip_kernel), the number of initializers
// checked, and a finding for each initializer that names no input dtype.
func checkTemplateArgInits(file string, src []byte) (sites, inits int, fs []Finding) {
	code := blankCpp(src, false)     // comments out, strings kept: entries are {"T", ...}
	structure := blankCpp(src, true) // strings out too, for matching braces
	for _, t := range factoryCalls(tokenize(structure)) {
		if keyedFactories[t] {
			sites++
		}
	}
	if sites == 0 {
		return 0, 0, nil
	}
	locals := map[string]bool{}
	for _, m := range dtypeLocalRE.FindAllSubmatch(code, -1) {
		locals[string(m[1])] = true
	}
	starts := lineStarts(src)
	for _, m := range templateArgsInitRE.FindAllSubmatchIndex(structure, -1) {
		open := m[1] - 1
		end := closingBrace(structure, open)
		if end < 0 {
			continue
		}
		inits++
		name := string(structure[m[2]:m[3]])
		var keys []string
		keyed := false
		for _, e := range templateEntryRE.FindAllSubmatch(code[open+1:end], -1) {
			keys = append(keys, string(e[1]))
			v := strings.TrimSpace(string(e[2]))
			if dtypeReadRE.MatchString(v) || locals[v] {
				keyed = true
			}
		}
		if keyed {
			continue
		}
		fs = append(fs, Finding{File: file, Line: lineAt(starts, m[0]),
			Message: fmt.Sprintf("template args %s name no input dtype (keys: %s): the JIT cache keys on name + template args, so a launch at a second dtype reuses the first one's module", name, strings.Join(append([]string{}, keys...), ", ")),
			Fix:     `add the varying inputs' dtypes, e.g. {"T", x.dtype()}; they key the cache even if the kernel body does not use them`})
	}
	return sites, inits, fs
}

// factoryCalls returns the names of the kernel factory calls among toks
// (declarations and members of other things left out), one per call.
func factoryCalls(toks []token) []string {
	var out []string
	for i := 0; i+1 < len(toks); i++ {
		if _, ok := factoryCall(toks, i); ok {
			out = append(out, toks[i].text)
		}
	}
	return out
}

// factoryCall reports whether toks[i] names a kernel factory called there
// (not declared or defined, not a member of something else), and the index
// of the start of its qualified name (mlx::core::fast::).
func factoryCall(toks []token, i int) (start int, ok bool) {
	if i+1 >= len(toks) || !kernelFactories[toks[i].text] || toks[i+1].text != "(" {
		return 0, false
	}
	q := i
	for q >= 2 && toks[q-1].text == "::" && toks[q-2].isIdent() {
		q -= 2
	}
	if q >= 1 && (toks[q-1].text == "." || toks[q-1].text == "->" || isDeclarationLead(toks[q-1])) {
		return 0, false
	}
	return q, true
}

// closingBrace returns the offset of the `}` closing the `{` at open in
// blanked source, or -1.
func closingBrace(code []byte, open int) int {
	depth := 0
	for i := open; i < len(code); i++ {
		switch code[i] {
		case '{':
			depth++
		case '}':
			depth--
			if depth == 0 {
				return i
			}
		}
	}
	return -1
}
