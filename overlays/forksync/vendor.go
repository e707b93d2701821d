package forksync

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/overlays/records"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// vendoring reports whether the overlay holds nothing of the fork yet:
// UPSTREAM's commit is the fork's merge base with MLX, the state of an
// overlay that keeps only its records. Its first sync brings the whole
// overlay, as the reference's does: the backend directories, and each MLX
// file the fork changes as "pin + fork delta".
func (p *syncPlan) vendoring(ctx context.Context, repo *repo) bool {
	if p.res.base == "" {
		return false
	}
	base, err := repo.resolve(ctx, p.res.base)
	return err == nil && base == p.res.from
}

// vendorCore adds, on a first sync, every MLX file the fork changes against
// its merge base (CMakeLists.txt and files under mlx/, outside the backend
// directories) and every fork.core file the overlay does not hold, each as
// the pin's file with the fork's change merged in. Files LOCAL_FIXES.md
// lists under a "Dropped" heading stay out, as do files the fork deleted.
func (p *syncPlan) vendorCore(ctx context.Context, repo *repo, o syncOptions, up records.Upstream) error {
	base := p.res.newBase
	if base == "" {
		base = p.res.base
	}
	out, err := git(ctx, repo.dir, "diff", "--name-only", "--no-renames", "--end-of-options", base, p.res.to, "--")
	if err != nil {
		return fmt.Errorf("forksync: listing what the fork changes (%s..%s): %w", short(base), short(p.res.to), err)
	}
	skip := map[string]bool{}
	for _, d := range records.Dropped(p.ours[records.LocalFixesName].data) {
		skip[d] = true
	}
	want := map[string]bool{}
	for _, c := range o.Fork.Core {
		want[trimSlash(c)] = true
	}
	for _, f := range strings.Split(out, "\n") {
		if f == "CMakeLists.txt" || strings.HasPrefix(f, "mlx/") {
			want[f] = true
		}
	}
	var paths []string
	for f := range want {
		if _, held := p.ours[f]; !held && !skip[f] && !under(f, o.Fork.Dirs) {
			paths = append(paths, f)
		}
	}
	if len(paths) == 0 {
		return nil
	}
	sort.Strings(paths)
	pinField, _ := up.Get("retargeted_to_mlx_pin")
	pin := pinField.Value
	if pin == "" || !repo.has(ctx, pin) {
		p.res.notes = append(p.res.notes, fmt.Sprintf("%s the fork changes were not added: the pin %s (UPSTREAM's retargeted_to_mlx_pin) is not in the fork's repository, so pin + fork delta cannot be built; add them with overlay:retarget from the merge base", plural.Count(len(paths), "MLX file"), short(pin)))
		return nil
	}
	trees := make([]files, 3)
	for i, c := range []string{pin, base, p.res.to} {
		if trees[i], err = repo.readTree(ctx, c, paths); err != nil {
			return err
		}
	}
	for _, f := range paths {
		t, inFork := trees[2][f]
		if !inFork {
			p.res.notes = append(p.res.notes, fmt.Sprintf("the fork deletes %s; an overlay cannot delete an MLX file, so it is not carried", f))
			continue
		}
		data, conflicted, err := p.m.reconstruct(ctx, trees[0][f].data, trees[1][f].data, t.data, true, f)
		if err != nil {
			return fmt.Errorf("%w (rebuilding %s)", err, f)
		}
		if conflicted {
			p.conflict(f, blob{data: data, exec: t.exec}, "the pin and the fork changed the same lines; the staged copy has conflict markers (<<<<<<< pin, ||||||| fork-merge-base, >>>>>>> fork)")
			continue
		}
		p.add(f, blob{data: data, exec: t.exec})
	}
	return nil
}
