package cmake

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/memo"
	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// olderThan reports whether f's file was last changed before since: the
// racy rule (memo.Clock). An absent file is judged by its nearest existing
// directory.
func olderThan(f, since recordedFile) bool {
	for !f.present {
		parent := filepath.Dir(f.path)
		if parent == f.path {
			return false
		}
		f = lookAt(parent)
	}
	return memo.Clock{OK: true, Dev: since.id.Dev, Ctime: since.id.Ctime}.Older(f.id.Dev, f.id.Ctime)
}

// rememberNoWork makes dir's record after a dry run with no work, which
// began after since (the lock file) was written; ninja is the program it
// ran. It returns why no record of files was made ("" when one was), and
// an error only when the record could not be written.
func rememberNoWork(ctx context.Context, dir, ninja string, since recordedFile) (string, error) {
	if !since.present {
		return "no lock file to compare times with", nil
	}
	ninjaPath, err := exec.LookPath(ninja)
	if err != nil {
		return "Ninja is not found", nil
	}
	if ninjaPath, err = filepath.Abs(ninjaPath); err != nil {
		return "Ninja's path", nil
	}
	scan, err := scanManifests(dir)
	if err != nil {
		return err.Error(), nil
	}
	manifests := make([]string, len(scan.files))
	for i, f := range scan.files {
		manifests[i] = joinBuild(dir, f)
	}
	// CMakeCache.txt names the Ninja program (ninjaFor), which the record
	// answers for without reading it.
	paths := append(manifests, joinBuild(dir, ".ninja_log"), joinBuild(dir, ".ninja_deps"), joinBuild(dir, "CMakeCache.txt"), ninjaPath)
	rec := noWorkRecord{dir: dir, ninja: ninja, ninjaPath: ninjaPath}
	if scan.refuse == "" {
		nodes, err := graphNodes(ctx, dir, ninja)
		switch {
		case ctx.Err() != nil:
			return "interrupted", nil
		case err != nil:
			// A Ninja without these tools (before 1.11), or output
			// they cannot be read from: not asked again until the
			// graph, its logs or Ninja change.
			scan.refuse = err.Error()
		default:
			for _, n := range nodes {
				paths = append(paths, joinBuild(dir, n))
			}
		}
	}
	if scan.refuse != "" {
		// Redone only when a manifest, a log or Ninja changes: until
		// then, no run reads the manifests or asks Ninja's tools again.
		rec = noWorkRecord{dir: dir, never: scan.refuse}
	}
	seen := make(map[string]bool, len(paths))
	for _, p := range paths {
		if seen[p] {
			continue
		}
		seen[p] = true
		if strings.ContainsAny(p, "\n\r") {
			return "a node's path holds a line break", nil
		}
		if p == buildDirNode(dir) {
			rec.files = append(rec.files, recordedFile{path: p, buildDir: true})
			continue
		}
		f := lookAt(p)
		if !olderThan(f, since) {
			return p + " changed during the dry run", nil
		}
		rec.files = append(rec.files, f)
	}
	// Folder by folder (stable: Ninja's order within each), so a check
	// opens each folder once (allHold).
	slices.SortStableFunc(rec.files, func(a, b recordedFile) int { return strings.Compare(filepath.Dir(a.path), filepath.Dir(b.path)) })
	return scan.refuse, writeNoWorkRecord(dir, rec)
}

// buildDirNode is the build directory as a node: CMake 4 gives targets
// with no other order dependency `|| .`, an order-only input, whose time
// Ninja never compares (it must only exist). Its mtime changes with every
// file mlxbuild writes there (this record, the configure record), so a
// record keeping it would never answer twice.
func buildDirNode(dir string) string { return joinBuild(dir, ".") }

// graphNodes lists every node of dir's graph, as Ninja's tools print them:
// each edge's outputs, their inputs of every kind, and the dependencies
// the deps log holds.
func graphNodes(ctx context.Context, dir, ninja string) ([]string, error) {
	tool := func(args ...string) ([]byte, error) {
		res, err := proc.RunLeaf(ctx, proc.Cmd{Path: ninja, Args: append([]string{"-C", dir, "-t"}, args...)})
		if err != nil {
			return nil, fmt.Errorf("ninja -t %s: %w", args[0], err)
		}
		if !bytes.HasPrefix(res.Stdout, []byte("ninja: Entering directory")) {
			return res.Stdout, nil
		}
		_, rest, _ := bytes.Cut(res.Stdout, []byte("\n"))
		return rest, nil
	}
	out, err := tool("targets", "all")
	if err != nil {
		return nil, err
	}
	outputs, err := parseTargetsAll(out)
	if err != nil {
		return nil, err
	}
	nodes := outputs
	if len(outputs) > 0 {
		if out, err = tool(append([]string{"inputs"}, outputs...)...); err != nil {
			return nil, err
		}
		inputs, err := parseInputs(out)
		if err != nil {
			return nil, err
		}
		nodes = append(nodes, inputs...)
	}
	if out, err = tool("deps"); err != nil {
		return nil, err
	}
	deps, err := parseDeps(out)
	if err != nil {
		return nil, err
	}
	return append(nodes, deps...), nil
}
