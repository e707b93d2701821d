package forksync

import (
	"context"
	"fmt"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// checkNotAhead refuses a fork commit that merged upstream MLX past the
// pin, as the reference's overlay tool does: when a merge base of commit
// and MLX's HEAD (head, fetched into the mirror) is not an ancestor of the
// pin, the fork carries MLX commits the pinned source does not have, and
// its backend files may call what the pin lacks. Syncing it would record a
// merge base the pin does not contain. The way out is to retarget the pin
// first. A pin that is not in upstream's history cannot be judged: that is
// said as an error too, since the sync would otherwise go on unchecked.
func (r *repo) checkNotAhead(ctx context.Context, commit, head, pin, upstream string) error {
	if pin == "" {
		return nil
	}
	if !r.has(ctx, pin) {
		// By id: a local or smart-HTTP upstream serves a reachable commit.
		if _, err := git(ctx, r.dir, "fetch", "--quiet", "--no-tags", "--", upstream, pin); err != nil || !r.has(ctx, pin) {
			return fail.Configf("the pin %s is not in MLX's repository %s, so the fork %s cannot be checked against it; set source.pin to a commit of that repository", short(pin), upstream, short(commit))
		}
	}
	out, err := git(ctx, r.dir, "merge-base", "--all", "--end-of-options", commit, head)
	if err != nil {
		return fmt.Errorf("forksync: merge base of the fork %s and MLX's HEAD %s: %w", short(commit), short(head), err)
	}
	for _, mb := range strings.Fields(out) {
		// is-ancestor exits 1 for "no", which git() reports as an error;
		// anything else is a failure of git itself.
		res, err := gitRaw(ctx, r.dir, "merge-base", "--is-ancestor", "--end-of-options", mb, pin)
		if err == nil {
			continue
		}
		if res.ExitCode != 1 {
			return fmt.Errorf("forksync: is %s an ancestor of the pin %s: %w", short(mb), short(pin), err)
		}
		return fail.WithFix(fail.Configf("fork %s is ahead of the pin %s: it contains upstream MLX commits the pin does not (merge base %s); nothing was written", short(commit), short(pin), mb),
			fmt.Sprintf("retarget the pin first (mage overlay:retarget %s), set source.pin to it, then sync again", mb))
	}
	return nil
}
