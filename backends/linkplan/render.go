package linkplan

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
)

// Cargo renders the plan as cargo: lines for a build script to print.
func (p *Plan) Cargo() string {
	var b strings.Builder
	p.cargoLink(&b)
	p.cargoRest(&b, nil)
	return b.String()
}

// CheckOnlyKey is the links metadata key a check-only run adds
// (CargoCheckOnly): a dependent's build script reads DEP_MLX_CHECK_ONLY=1
// and skips its own C++ compile, as the run it depends on did.
const CheckOnlyKey = "check_only"

// CargoCheckOnly renders what an editor's or lint job's build script run
// prints (MLXBUILD_CHECK_ONLY, DOCS_RS): the rustc-env values the crate's
// env!() reads, the links metadata a bridge compiles with (include,
// defines, cxx_std) with check_only=1, and the rerun lines; no
// rustc-link-* line, since nothing was built to link.
func (p *Plan) CargoCheckOnly() string {
	var b strings.Builder
	p.cargoRest(&b, []string{CheckOnlyKey + "=1"})
	return b.String()
}

// cargoLink writes the plan's link lines: search paths, libraries, run
// paths.
func (p *Plan) cargoLink(b *strings.Builder) {
	line := func(format string, args ...any) { fmt.Fprintf(b, "cargo:"+format+"\n", args...) }
	seen := map[string]bool{}
	for _, a := range p.Static {
		if d := filepath.Dir(a); !seen[d] {
			seen[d] = true
			line("rustc-link-search=native=%s", d)
		}
	}
	for _, d := range p.SearchDirs {
		line("rustc-link-search=native=%s", d)
	}
	for _, a := range p.Static {
		line("rustc-link-lib=static=%s", archiveName(a))
	}
	for _, l := range p.Dynamic {
		line("rustc-link-lib=dylib=%s", l)
	}
	for _, l := range p.System {
		line("rustc-link-lib=dylib=%s", l)
	}
	for _, f := range p.Frameworks {
		line("rustc-link-lib=framework=%s", f)
	}
	for _, a := range p.rpathArgs() {
		line("rustc-link-arg=%s", a)
	}
}

// cargoRest writes the lines after the link lines: rustc-env, the links
// metadata with extra keys, the rerun lines.
func (p *Plan) cargoRest(b *strings.Builder, extra []string) {
	line := func(format string, args ...any) { fmt.Fprintf(b, "cargo:"+format+"\n", args...) }
	env := p.rustcEnv()
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		line("rustc-env=%s=%s", k, env[k])
	}
	for _, m := range append(p.cargoMetadata(), extra...) {
		line("%s", m)
	}
	for _, r := range p.RerunPaths {
		line("rerun-if-changed=%s", r)
	}
	for _, e := range p.RerunEnv {
		line("rerun-if-env-changed=%s", e)
	}
}

// rustcEnv is the plan's rustc_env with the tree fingerprint added, so
// that cargo.txt and cxxflags.txt say the one value link.json holds.
func (p *Plan) rustcEnv() map[string]string {
	if p.TreeFingerprint == "" {
		return p.Env
	}
	env := make(map[string]string, len(p.Env)+1)
	for k, v := range p.Env {
		env[k] = v
	}
	env[FingerprintName] = p.TreeFingerprint
	return env
}

// cargoMetadata are the lines a build script prints as its links metadata:
// with `links = "mlx"` in the crate's manifest, Cargo hands each KEY to the
// build scripts of the crates that depend on it as DEP_MLX_<KEY>. A
// dependency's rustc-link-arg never reaches a dependent's binaries, so
// this is how a workspace's binary crates learn the run path; the compile
// keys let the crate's own build script (and a dependent's) compile C++
// against the tree. Lists are joined as the platform's PATH is, since a
// key may appear once.
func (p *Plan) cargoMetadata() []string {
	c := p.compile()
	meta := []string{
		"runpath=" + strings.Join(p.RunPaths, string(filepath.ListSeparator)),
		"rpath_mode=" + p.RpathMode,
		"include=" + strings.Join(c.Include, string(filepath.ListSeparator)),
		"defines=" + strings.Join(c.Defines, " "),
		"cxx_std=" + c.Std,
		"backend=" + p.Backend,
	}
	if p.TreeFingerprint != "" {
		// A dependency's rustc-env reaches only its own crate: a
		// workspace's binary crate reads DEP_MLX_TREE_FINGERPRINT.
		meta = append(meta, "tree_fingerprint="+p.TreeFingerprint)
	}
	return meta
}

// compile is the plan's compile section, empty when a plan made by hand
// has none.
func (p *Plan) compile() *Compile {
	if p.Compile == nil {
		return &Compile{}
	}
	return p.Compile
}

func archiveName(path string) string {
	return strings.TrimSuffix(strings.TrimPrefix(filepath.Base(path), "lib"), ".a")
}

func (p *Plan) rpathArgs() []string {
	var args []string
	if p.RpathMode == "legacy" && len(p.RunPaths) > 0 {
		args = append(args, "-Wl,--disable-new-dtags")
	}
	for _, d := range p.RunPaths {
		args = append(args, "-Wl,-rpath,"+d)
	}
	return args
}

// LdflagArgs are the plan's arguments for a C or C++ linker driver, in
// link order, one path each however it is spelled.
func (p *Plan) LdflagArgs() []string {
	var args []string
	args = append(args, p.Static...)
	for _, d := range p.SearchDirs {
		args = append(args, "-L"+d)
	}
	for _, l := range p.Dynamic {
		args = append(args, "-l"+l)
	}
	for _, l := range p.System {
		args = append(args, "-l"+l)
	}
	for _, f := range p.Frameworks {
		args = append(args, "-framework", f)
	}
	return append(args, p.rpathArgs()...)
}

// Ldflags renders LdflagArgs as ldflags.txt holds them: a response file
// (`g++ ... @ldflags.txt`), see ResponseFile.
func (p *Plan) Ldflags() string { return ResponseFile(p.LdflagArgs()) }

// CxxflagArgs are the compile section's arguments for a C++ compiler.
func (p *Plan) CxxflagArgs() []string {
	c := p.compile()
	var args []string
	if c.Std != "" {
		args = append(args, "-std="+c.Std)
	}
	for _, d := range c.Include {
		args = append(args, "-I"+d)
	}
	for _, d := range c.Defines {
		args = append(args, "-D"+d)
	}
	if p.TreeFingerprint != "" {
		// The quotes are part of the argument: ResponseFile escapes them,
		// so `g++ @cxxflags.txt` defines the macro as a string literal.
		args = append(args, "-D"+FingerprintName+`="`+p.TreeFingerprint+`"`)
	}
	return args
}

// Cxxflags renders CxxflagArgs as cxxflags.txt holds them: a response
// file (`g++ @cxxflags.txt ...`), see ResponseFile.
func (p *Plan) Cxxflags() string { return ResponseFile(p.CxxflagArgs()) }

// ResponseFile renders args on one line as GCC and Clang read a response
// file (`@file`): separated by spaces, and within an argument a
// backslash before each blank, quote or backslash, which both read as
// that character itself (GCC's libiberty buildargv, Clang's GNU
// tokenizer). So a cache under "My Projects" stays one argument. An
// argument that needs no escaping is written as it is, so a plan of plain
// paths reads the same through `$(cat ldflags.txt)`, which splits on
// blanks only and leaves backslashes in: that form works only while no
// path holds a blank. A newline cannot be escaped this way (GCC reads
// backslash-newline as a newline, but line-based readers would not); no
// plan holds one (see backends' checkControl).
func ResponseFile(args []string) string {
	var b strings.Builder
	for i, a := range args {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a == "" {
			b.WriteString(`""`)
		}
		for j := 0; j < len(a); j++ {
			switch c := a[j]; c {
			case ' ', '\t', '\v', '\f', '\r', '\n', '\'', '"', '\\':
				b.WriteByte('\\')
				b.WriteByte(c)
			default:
				b.WriteByte(c)
			}
		}
	}
	b.WriteByte('\n')
	return b.String()
}

// JSON renders the plan as link.json holds it.
func (p *Plan) JSON() []byte {
	data, _ := json.MarshalIndent(p, "", "  ")
	return append(data, '\n')
}
