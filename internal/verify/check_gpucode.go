package verify

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/arch"
	"github.com/mlxbuild/mlxbuild/backends/linkplan"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// GPUCode checks the GPU code objects inside the built archives against the
// architectures the link plan promises (issue 14, item 2). The plan's list is
// what the consumer is told (link.json's rustc_env, and the same line of
// cargo.txt next to it); the archives are the plan's static libraries. A
// build directory configured for another list than the plan says (a
// reconfigure that was killed or failed) links code for the wrong GPU while
// every other check passes; this check fails it, naming both lists.
//
// Each object file of an archive is compared on its own, exactly: CMake
// compiles precisely the list it was configured with, so a missing and an
// extra architecture are both a mismatch.
type GPUCode struct {
	// LinkPlan is the link plan's link.json.
	LinkPlan string
	// Backend is arch.ROCm or arch.CUDA: which code objects to compare.
	Backend string
	// ArchEnv is the rustc_env key of the plan that holds the ";"-joined list.
	ArchEnv string
	// Env reads the environment for cuobjdump's lookup ($CUDA_HOME/bin,
	// PATH); nil means os.Getenv.
	Env func(string) string
}

// Name is the check's name in reports.
func (GPUCode) Name() string { return "gpu_code" }

// Run compares every archive of the plan with the plan's architectures.
func (c GPUCode) Run(ctx context.Context) Result {
	data, err := os.ReadFile(c.LinkPlan)
	if err != nil {
		return result(c.Name(), []Finding{{File: c.LinkPlan, Message: fmt.Sprintf("the link plan cannot be read: %v", err),
			Fix: "run the build first"}}, "")
	}
	// The reader parent repositories use, so verify sees the plan as they do.
	plan, err := linkplan.Decode(c.LinkPlan, data)
	if err != nil {
		return result(c.Name(), []Finding{{File: c.LinkPlan, Message: fmt.Sprintf("the link plan is unreadable: %v", err),
			Fix: "run the build again; it rewrites the plan"}}, "")
	}
	listed, ok := plan.Env[c.ArchEnv]
	if !ok {
		return result(c.Name(), []Finding{{File: c.LinkPlan, Message: fmt.Sprintf("the link plan names no %s", c.ArchEnv),
			Fix: "run the build again; it rewrites the plan"}}, "")
	}
	planned := arch.Split(listed)
	var fs []Finding
	if f, ok := c.cargoAgrees(listed); !ok {
		fs = append(fs, f)
	}
	o := arch.Options{Env: c.Env}
	withCode, compared := 0, 0
	var notes []string
	for _, lib := range plan.Static {
		bins, err := arch.InspectArchive(ctx, lib, o)
		if err != nil {
			fs = append(fs, Finding{File: lib, Message: fmt.Sprintf("cannot read its code objects: %v", err), Fix: "run the build again"})
			continue
		}
		mismatched := map[string][]string{} // how they differ -> members
		for _, b := range bins {
			notes = append(notes, b.Notes...)
			if !hasCode(c.Backend, b) {
				continue
			}
			withCode++
			m, ok := arch.ComparePlanned(c.Backend, b, planned)
			if !ok {
				notes = append(notes, fmt.Sprintf("the plan's list %s holds a CMake keyword: not compared", listed))
				continue
			}
			compared++
			if m.Differs() {
				key := fmt.Sprintf("holds code for %s, but the link plan says %s: %s", strings.Join(m.Built, ";"), listed, m)
				mismatched[key] = append(mismatched[key], memberName(b.File, lib))
			}
		}
		for _, key := range sortedKeysOf(mismatched) {
			fs = append(fs, Finding{File: lib,
				Message: fmt.Sprintf("%s %s", describeMembers(mismatched[key]), key),
				Fix: fmt.Sprintf("the build directory %s was configured for other architectures than the plan (a reconfigure that was interrupted or failed): run build:%s again; if this stays, delete that directory and build",
					filepath.Dir(lib), c.Backend)})
		}
	}
	if withCode == 0 && len(fs) == 0 {
		if len(notes) > 0 {
			return skipped(c.Name(), "the archives' GPU code cannot be read here: "+strings.Join(dedupeStrings(notes), "; "))
		}
		fs = append(fs, Finding{File: c.LinkPlan, Message: fmt.Sprintf("no archive of the link plan (%s) holds %s GPU code", listOrNone(plan.Static), c.Backend),
			Fix: "check that the backend's kernel library is in link.static of the spec"})
	}
	return result(c.Name(), fs, fmt.Sprintf("%s with GPU code compared with %s", plural.Count(compared, "object"), listed))
}

// cargoAgrees compares the plan's list with cargo.txt's rustc-env line for
// the same key, when cargo.txt exists next to link.json: a consumer built
// through Cargo embeds that line.
func (c GPUCode) cargoAgrees(listed string) (Finding, bool) {
	cargo := filepath.Join(filepath.Dir(c.LinkPlan), "cargo.txt")
	data, err := os.ReadFile(cargo)
	if err != nil {
		return Finding{}, true
	}
	prefix := "cargo:rustc-env=" + c.ArchEnv + "="
	s := bufio.NewScanner(bytes.NewReader(data))
	for s.Scan() {
		if v, ok := strings.CutPrefix(s.Text(), prefix); ok {
			if v == listed {
				return Finding{}, true
			}
			return Finding{File: cargo, Message: fmt.Sprintf("says %s=%s, but link.json says %s", c.ArchEnv, v, listed),
				Fix: "run the build again; it rewrites both"}, false
		}
	}
	return Finding{File: cargo, Message: fmt.Sprintf("has no %s line, but link.json says %s", c.ArchEnv, listed),
		Fix: "run the build again; it rewrites both"}, false
}

func hasCode(backend string, b arch.Binary) bool {
	if backend == arch.ROCm {
		return len(b.ROCm) > 0
	}
	return len(b.SASS) > 0 || len(b.PTX) > 0
}

// memberName is "binary.hip.o" for "lib.a(binary.hip.o)", "" for the archive itself.
func memberName(file, lib string) string {
	return strings.TrimSuffix(strings.TrimPrefix(file, lib+"("), ")")
}

func describeMembers(members []string) string {
	var named []string
	for _, m := range members {
		if m != "" {
			named = append(named, m)
		}
	}
	switch {
	case len(named) == 0:
		return "the archive"
	case len(named) <= 3:
		return strings.Join(named, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(named[:3], ", "), len(named)-3)
}

func sortedKeysOf(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func dedupeStrings(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
