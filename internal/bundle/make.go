package bundle

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// Input is what Make needs of a finished build.
type Input struct {
	Plan      *linkplan.Plan
	PlanFile  string // link.json's path, for messages
	Policy    *configs.BundlePolicy
	Toolchain Toolchain
	// ToolchainRoot replaces {toolchain.root} in the policy's headers.
	ToolchainRoot string
	BuildDir      string // the backend's build folder (its build.ninja)
	Executables   []string
	Out           string
	// SystemDirs is where libraries no run path finds are looked for
	// (SystemDirs("/etc/ld.so.conf") on a real run).
	SystemDirs []string
	Patchelf   string // the patchelf program; "" looks it up on PATH
}

// Make makes the bundle in a temporary folder beside in.Out and swaps it
// in whole; it writes nothing else. It returns the manifest written.
func Make(ctx context.Context, in Input) (*Manifest, error) {
	if len(in.Executables) == 0 {
		return nil, fail.Configf("bundle: no executable given; name the programs linked against the build")
	}
	if err := checkOut(in.Out); err != nil {
		return nil, err
	}
	m := &Manifest{Format: Format, Backend: in.Plan.Backend, MLXPin: in.Plan.Env["MLXBUILD_MLX_PIN"], TreeFingerprint: in.Plan.TreeFingerprint,
		Architectures: splitList(in.Plan.Env["MLXBUILD_GPU_ARCHITECTURES"]), Toolchain: in.Toolchain, RpathMode: in.Plan.RpathMode,
		Executables: []Executable{}, Libraries: []Library{}, Headers: []Headers{}}
	policy := in.Policy
	if policy == nil {
		policy = &configs.BundlePolicy{}
	}
	exes, err := in.readExecutables(m)
	if err != nil {
		return nil, err
	}
	if err := in.checkPlanLibraries(policy); err != nil {
		return nil, err
	}
	tmp, err := stage(in.Out)
	if err != nil {
		return nil, err
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(tmp)
		}
	}()
	r := &resolver{in: in, policy: policy, tmp: tmp, libs: map[string]*Library{}}
	for _, d := range []string{"bin", "lib"} {
		if err := os.Mkdir(filepath.Join(tmp, d), 0o755); err != nil {
			return nil, err
		}
	}
	for _, o := range exes {
		dst := filepath.Join(tmp, "bin", filepath.Base(o.path))
		if err := copyFile(o.path, dst, 0o755); err != nil {
			return nil, err
		}
		if err := r.needs(o, filepath.Base(o.path)); err != nil {
			return nil, err
		}
		if err := setRunPath(ctx, in.Patchelf, dst, "$ORIGIN/../lib", in.Plan.RpathMode == "legacy"); err != nil {
			return nil, err
		}
	}
	if err := r.dlopened(); err != nil {
		return nil, err
	}
	for _, l := range r.libs {
		m.Libraries = append(m.Libraries, *l)
	}
	sort.Slice(m.Libraries, func(i, j int) bool { return m.Libraries[i].Soname < m.Libraries[j].Soname })
	for _, l := range m.Libraries {
		if l.How == Bundled {
			if err := setRunPath(ctx, in.Patchelf, filepath.Join(tmp, "lib", l.Soname), "$ORIGIN", false); err != nil {
				return nil, err
			}
		}
	}
	if m.Headers, err = in.copyHeaders(policy, tmp); err != nil {
		return nil, err
	}
	if h := policy.HeaderHome; h != nil {
		m.HeaderHome = &HeaderHome{Beside: h.Beside, Env: append([]string{}, h.Env...), Default: h.Default, Sub: h.Sub}
	}
	if err := noAbsoluteRunPath(tmp); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(tmp, ManifestName), m.encode(), 0o644); err != nil {
		return nil, err
	}
	if err := swapIn(tmp, in.Out); err != nil {
		return nil, err
	}
	done = true
	return m, nil
}

// readExecutables reads every program given and refuses one that is not
// an ELF executable, one not linked against this build, and two with
// the same name (bin/ holds one of each).
func (in Input) readExecutables(m *Manifest) ([]*object, error) {
	var out []*object
	names := map[string]string{}
	for _, path := range in.Executables {
		o, err := readObject(path)
		if err != nil {
			return nil, err
		}
		if !o.exec {
			return nil, fail.Configf("%s: an ELF file but not an executable (a library or an object); give bundle the programs linked against the build", path)
		}
		base := filepath.Base(path)
		if prev, ok := names[base]; ok {
			return nil, fail.Configf("%s and %s have the same name; bin/ holds one program of each name: bundle them separately", prev, path)
		}
		names[base] = path
		by, err := in.linkedBy(o)
		if err != nil {
			return nil, err
		}
		m.Executables = append(m.Executables, Executable{Name: base, LinkedBy: by})
		out = append(out, o)
	}
	return out, nil
}

// linkedBy says how the program shows it was linked against this build.
// MLX is linked statically, so no NEEDED entry names it. The proof is
// the tree fingerprint (a program that scopes MLX's kernel cache by it,
// as docs/migrating.md shows, holds it as a string); failing that, the
// link plan's run path, which every program linked from the plan carries
// (without it the program would not start), and which a program linked
// against another toolchain's build does not.
func (in Input) linkedBy(o *object) (string, error) {
	if fp := in.Plan.TreeFingerprint; fp != "" {
		data, err := os.ReadFile(o.path)
		if err != nil {
			return "", err
		}
		if bytes.Contains(data, []byte(fp)) {
			return "tree_fingerprint", nil
		}
	}
	have := append(append([]string(nil), o.runpath...), o.rpath...)
	if len(in.Plan.RunPaths) > 0 {
		all := true
		for _, d := range in.Plan.RunPaths {
			all = all && slices.Contains(have, d)
		}
		if all {
			return "run_path", nil
		}
	}
	return "", fail.Configf("%s is not linked against this build (%s): it holds neither the build's tree fingerprint %s nor the plan's run path %q (its run path: %q); link it with the plan's ldflags.txt or cargo.txt, or bundle it with the backend it was built for",
		o.path, in.PlanFile, orNone(in.Plan.TreeFingerprint), strings.Join(in.Plan.RunPaths, ":"), strings.Join(have, ":"))
}

// checkPlanLibraries: every library the plan links dynamically exists in
// the plan's search folders (a removed toolchain, or a plan older than
// the toolchain's last upgrade), except the driver's (linked against a
// stub).
func (in Input) checkPlanLibraries(p *configs.BundlePolicy) error {
	for _, name := range in.Plan.Dynamic {
		if slices.Contains(p.Driver, name) {
			continue
		}
		found := false
		for _, d := range in.Plan.SearchDirs {
			if matches, _ := filepath.Glob(filepath.Join(d, "lib"+name+".so*")); len(matches) > 0 {
				found = true
				break
			}
		}
		if !found {
			return fmt.Errorf("lib%s.so, which the link plan %s names, is missing from %s; reinstall it, or build the backend again (mage build:%s) for the toolchain this machine has",
				name, in.PlanFile, strings.Join(in.Plan.SearchDirs, ", "), in.Plan.Backend)
		}
	}
	return nil
}

func splitList(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ";") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(the plan has none)"
	}
	return s
}
