// Package records reads an overlay's records: the UPSTREAM file, which says
// where the overlay's files come from, and LOCAL_FIXES.md, which lists the
// changes made on top of them.
//
// Both parsers are forgiving: they never fail on malformed input, they return
// what they understood plus a list of Problems with 1-based line numbers, so a
// caller can report every defect of a file in one run rather than the first.
//
// UPSTREAM holds `key: value` lines. Blank lines and lines starting with `#`
// are ignored. Keys are case-sensitive; a key given twice is a problem.
//
// LOCAL_FIXES.md holds numbered items. An item starts at a line of the form
//
//	N. **Title.**
//
// (N a positive decimal number, the title in bold, optionally followed by
// more text on the same line) and runs until the next item or the next
// Markdown heading. Inside an item:
//
//   - Every backtick span that looks like a path (no spaces, no parentheses,
//     no `::`, and either containing a `/` or ending in a file extension) is a
//     path the item names, relative to the overlay root.
//   - A line `Status: <value>` (optionally bulleted or bold, as in
//     `- **Status:** proposed https://...`) says where the fix stands:
//     `retarget-only` (the change only moves upstream code to the pinned MLX
//     and is never proposed), `to be proposed` (a fix to send upstream), or
//     `proposed <URL>` (sent, with the link to the pull request). One
//     trailing period is allowed and dropped (`Status: to be proposed.`;
//     the link of `proposed <URL>.` has no period). An unrecognised value is
//     a problem.
//   - Without a Status line, as in the reference's own records, the item's
//     prose says it ("Applies to the fork; to be proposed there.",
//     "retarget-only"), or failing that its `##` section does ("Retarget
//     onto the MLX pin", "Fixes to the fork's kernels"); see classify.
//     Only an item that says nothing anywhere has StatusUnknown.
//
// Paths are relative to the MLX tree or to a backend directory
// (`quantized/qmm.hip` for mlx/backend/rocm/quantized/qmm.hip), and items
// also name upstream and engine files: Layout.Resolve tells overlay files
// from the rest, Layout.Mentions whether the text names an overlay file.
//
// CORE_RESIDUAL.diff (ParseResidual) records what the core files carry
// beyond "MLX pin + the fork's change"; Gate is the offline check of all
// the records together, the one verdict every command that asks gives.
//
// It is mlxbuild's own API, not supported for parent repositories: a
// parent's magefile imports targets, and reads a build's link plan with
// backends/linkplan.
package records
