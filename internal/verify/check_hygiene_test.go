package verify

import "testing"

func hygiene(root string) Hygiene {
	return Hygiene{Root: root, Vendored: []string{"third_party/**"}, Owned: []string{"mlx/**/*.{cpp,h}"}}
}

func TestHygieneClean(t *testing.T) {
	r := mustPass(t, hygiene("testdata/hygiene/clean"))
	if r.Reason != "1 vendored file, 2 owned files" {
		t.Errorf("reason = %q", r.Reason)
	}
}

func TestHygieneBareIssue(t *testing.T) {
	dir := copyTree(t, "testdata/hygiene/clean")
	plant(t, dir, "third_party/hipcub/block_reduce.hpp", "ROCm/hipCUB#123 on gfx1030", "#123 on gfx1030")
	r := mustFind(t, hygiene(dir), "block_reduce.hpp:4", "bare issue reference #123")
	if len(r.Findings) != 1 {
		t.Errorf("only #123 is bare (URL, &#123; and #000000 are not):\n%s", findingsText(r))
	}
}

func TestHygieneHeaderAndNotice(t *testing.T) {
	dir := copyTree(t, "testdata/hygiene/clean")
	plant(t, dir, "mlx/backend/rocm/reduce.h", "/* Copyright © 2025 The mlxbuild example authors. */\n", "")
	mustFind(t, hygiene(dir), "reduce.h:1", "no licence header")

	dir = copyTree(t, "testdata/hygiene/clean")
	plant(t, dir, "NOTICE", "https://github.com/ROCm/hipCUB ", "hipCUB ")
	mustFind(t, hygiene(dir), "NOTICE", "NOTICE does not name https://github.com/ROCm/hipCUB (UPSTREAM line 2")

	// A vendored file needs no header; an owned file listed as vendored
	// is skipped for headers too.
	dir = copyTree(t, "testdata/hygiene/clean")
	plant(t, dir, "mlx/backend/rocm/reduce.h", "/* Copyright © 2025 The mlxbuild example authors. */\n", "")
	h := hygiene(dir)
	h.Vendored = append(h.Vendored, "mlx/backend/rocm/reduce.h")
	mustPass(t, h)
}
