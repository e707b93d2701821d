package arch

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/inputfile"
)

// InspectArchive is inspect for a static archive, member by member: one
// Binary per object file that holds HIP offload bundles (named
// "lib.a(member.o)"), and, when the archive holds CUDA fat binaries, one
// Binary for the whole archive with its sm_ targets (cuobjdump reads the
// archive as a whole). A file that is not an archive gives inspect's answer.
func InspectArchive(ctx context.Context, file string, o Options) ([]Binary, error) {
	data, err := (inputfile.File{Path: file, What: "built library", Limit: inputfile.BinaryLimit}).Read(ctx)
	if err != nil {
		return nil, err
	}
	if !isArchive(data) {
		b, err := inspect(ctx, file, o)
		return []Binary{b}, err
	}
	members, err := parseArchive(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	var out []Binary
	for _, m := range members {
		gfx, notes := rocmTargets(m.data)
		if len(gfx) > 0 || len(notes) > 0 {
			out = append(out, Binary{File: file + "(" + m.name + ")", ROCm: gfx, Notes: notes})
		}
	}
	if containsCUDA(data) {
		b := Binary{File: file}
		if err := inspectCUDA(ctx, file, o, &b); err != nil {
			b.Notes = append(b.Notes, err.Error())
		}
		out = append(out, b)
	}
	return out, nil
}

// planMismatch is how the code objects of one built file differ from the
// architectures the link plan promises.
type planMismatch struct {
	Built   []string // what the file holds: gfx targets, or sm_/compute_ names
	missing []string // planned architectures the file has no code for
	extra   []string // code for architectures the plan does not name
}

// ComparePlanned compares a built file with the planned list (the CMake
// architectures the link plan records). The comparison is exact, not "runs
// on": CMake compiles precisely the list it was configured with, so any
// difference means the build directory was configured for another list
// than the plan says (an interrupted or failed reconfigure). ROCm targets
// are compared by processor (features such as :xnack- aside); CUDA entries
// by their number and suffix, "-real" and "-virtual" saying which of SASS
// and PTX to expect. backend (ROCm or CUDA) says which of the file's code
// to compare. ok is false when the plan holds a CMake keyword (native, all,
// all-major), which cannot be compared.
func ComparePlanned(backend string, b Binary, planned []string) (m planMismatch, ok bool) {
	if backend == ROCm {
		m.Built = b.ROCm
		want := map[string]bool{}
		for _, p := range planned {
			want[processor(p)] = true
		}
		have := map[string]bool{}
		for _, t := range b.ROCm {
			have[processor(t)] = true
			if !want[processor(t)] {
				m.extra = append(m.extra, t)
			}
		}
		for _, p := range planned {
			if !have[processor(p)] {
				m.missing = append(m.missing, p)
			}
		}
		return m, true
	}
	for _, p := range planned {
		if cudaKeywords[p] {
			return m, false
		}
	}
	sass, ptx := map[string]bool{}, map[string]bool{}
	for _, p := range planned {
		switch {
		case strings.HasSuffix(p, "-real"):
			sass[strings.TrimSuffix(p, "-real")] = true
		case strings.HasSuffix(p, "-virtual"):
			ptx[strings.TrimSuffix(p, "-virtual")] = true
		default:
			sass[p], ptx[p] = true, true
		}
	}
	if built := cudaBuiltList(b); built != "" {
		m.Built = strings.Split(built, ";")
	}
	diff := func(want map[string]bool, got []string, name func(string) string) {
		have := map[string]bool{}
		for _, g := range got {
			have[g] = true
			if !want[g] {
				m.extra = append(m.extra, name(g))
			}
		}
		for _, w := range sortedKeys(want) {
			if !have[w] {
				m.missing = append(m.missing, name(w))
			}
		}
	}
	diff(sass, b.SASS, func(s string) string { return "sm_" + s })
	diff(ptx, b.PTX, func(s string) string { return "compute_" + s + " (PTX)" })
	return m, true
}

// Differs reports whether the file and the plan disagree.
func (m planMismatch) Differs() bool { return len(m.missing) > 0 || len(m.extra) > 0 }

// String says how they disagree: "no code for gfx1030; code for gfx90a, which the plan does not name".
func (m planMismatch) String() string {
	var parts []string
	if len(m.missing) > 0 {
		parts = append(parts, "no code for "+Join(m.missing))
	}
	if len(m.extra) > 0 {
		parts = append(parts, "code for "+Join(m.extra)+", which the plan does not name")
	}
	return strings.Join(parts, "; ")
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
