package cmake

import (
	"os"
	"path/filepath"

	"github.com/mlxbuild/mlxbuild/internal/memo"
)

// Every build, a no-op too, renders the link plan, which says the C++
// standard CMake's code model gives the plan's libraries. The model's files
// are JSON (real MLX's library target alone is tens of kilobytes), and
// decoding them was the largest part of a no-op's link plan. The answer
// depends only on the targets asked for and on the reply files read, which
// CMake never rewrites in place: every generate writes a new index, and
// names each reply file after a hash of its content. So the build directory
// keeps the last answer with the identity (memo.ID.Key) of each file it
// was read from, taken before reading it, and the answer stands while the
// newest index and every one of those files keep theirs. Only an answer
// read whole from a model is kept (the early answers read no JSON), so the
// memo is written only into a build directory CMake generated, by any
// reader (plan too, as the discovery memo is: a cache of what is derived,
// which changes nothing a build or the user reads).
const (
	stdMemoFile = "mlxbuild-cxxstd"
	stdMemoKind = "cxx-standard"
)

// recalledStd is the memo's answer for targets when the newest index is
// still index and no file it was read from changed.
func recalledStd(build, index string, targets []string) (CXXStandard, bool) {
	keys := stdMemoKeys(filepath.Join(fileAPIDir(build), "reply", index), targets)
	return memo.Get(filepath.Join(build, stdMemoFile), stdMemoKind, keys, os.Getenv, stdFromValues)
}

// rememberStd keeps std, read from files (identity keys taken before each
// was read, the index first), for the next build, as an internal/memo
// entry keyed by the index's path and the targets. A failure to write
// costs only the next build a decode, so it is not an error.
func rememberStd(build string, targets, files []string, std CXXStandard) {
	if len(files) == 0 {
		return
	}
	index, ok := memo.KeyPath(files[0])
	if !ok {
		return
	}
	e := memo.Entry{Keys: stdMemoKeys(index, targets), Files: files, Values: [][2]string{{"std", std.Std}, {"from", std.From}}}
	memo.Store(filepath.Join(build, stdMemoFile), stdMemoKind, e)
}

func stdMemoKeys(index string, targets []string) [][2]string {
	keys := [][2]string{{"index", index}}
	for _, t := range targets {
		keys = append(keys, [2]string{"target", t})
	}
	return keys
}

// stdFromValues is the standard an entry's values hold.
func stdFromValues(v [][2]string) (CXXStandard, bool) {
	if len(v) != 2 || v[0][0] != "std" || v[1][0] != "from" {
		return CXXStandard{}, false
	}
	return CXXStandard{Std: v[0][1], From: v[1][1]}, true
}
