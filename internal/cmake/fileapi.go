package cmake

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/memo"
)

// CMake's file API: a query file in the build directory asks CMake to
// write its code model (every target's compile groups, with the language
// standard CMake compiles each with) at every generate, the configure's
// and the ones Ninja triggers. It is how mlxbuild learns what C++
// standard the project's own CMake gives its library, instead of trusting
// a constant in a spec (real MLX sets CMAKE_CXX_STANDARD 20, and its
// public headers need it).

// fileAPIClient is mlxbuild's client name in the file API's query and
// reply directories.
const fileAPIClient = "client-mlxbuild"

func fileAPIDir(build string) string { return filepath.Join(build, ".cmake", "api", "v1") }

// writeFileAPIQuery asks for the code model before CMake configures the
// build directory (an empty file is a stateless query).
func writeFileAPIQuery(build string) error {
	dir := filepath.Join(fileAPIDir(build), "query", fileAPIClient)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("asking CMake for its code model: %w", err)
	}
	q := filepath.Join(dir, "codemodel-v2")
	if _, err := os.Stat(q); err == nil {
		return nil
	}
	if err := os.WriteFile(q, nil, 0o644); err != nil {
		return fmt.Errorf("asking CMake for its code model: %w", err)
	}
	return nil
}

// CXXStandard is what the build's CMake says of the C++ standard of some
// targets.
type CXXStandard struct {
	// Std is the newest standard the targets' C++ sources are compiled
	// with, as -std= takes it (c++20); "" when CMake sets none.
	Std string
	// From says where Std was read, or why the build says nothing.
	From string
}

// ReadCXXStandard reads, from the code model CMake wrote into build, the
// newest C++ standard the named targets compile with (a standard set by
// CMAKE_CXX_STANDARD, CXX_STANDARD or a cxx_std_NN compile feature: what
// a consumer of their headers needs too). A build configured before
// mlxbuild asked, or one whose targets set no standard, says nothing
// (Std ""), and From says why; a reply that cannot be read is an error
// naming its file.
func ReadCXXStandard(build string, targets []string) (CXXStandard, error) {
	reply := filepath.Join(fileAPIDir(build), "reply")
	entries, err := os.ReadDir(reply)
	if errors.Is(err, fs.ErrNotExist) {
		if !fileExists(filepath.Join(build, "CMakeCache.txt")) {
			return CXXStandard{From: "not configured yet (a build reads the standard from CMake's code model)"}, nil
		}
		return CXXStandard{From: "the build was configured before mlxbuild asked CMake for its code model (the next configure records it)"}, nil
	}
	if err != nil {
		return CXXStandard{}, fmt.Errorf("reading CMake's code model: %w", err)
	}
	// The index with the greatest name is the newest (CMake's file API).
	index := ""
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, "index-") && strings.HasSuffix(n, ".json") && n > index {
			index = n
		}
	}
	if index == "" {
		return CXXStandard{From: "CMake wrote no code model index into " + reply}, nil
	}
	if std, ok := recalledStd(build, index, targets); ok {
		return std, nil
	}
	std, readKeys, err := decodeCXXStandard(reply, index, targets)
	if err == nil && readKeys != nil {
		rememberStd(build, targets, readKeys, std)
	}
	return std, err
}

// decodeCXXStandard is ReadCXXStandard's answer from the reply files, index
// the newest index, and the identity of each file it read (taken before
// reading it) when the answer came from a model; nil for the answers that
// read no model.
func decodeCXXStandard(reply, index string, targets []string) (CXXStandard, []string, error) {
	var readKeys []string
	read := func(name string) ([]byte, error) {
		p := filepath.Join(reply, name)
		readKeys = append(readKeys, memo.Of(p).Key())
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("reading CMake's code model: %w; configure again (cache:clean, then build)", err)
		}
		return data, nil
	}
	data, err := read(index)
	if err != nil {
		return CXXStandard{}, nil, err
	}
	model, err := parseIndex(data)
	if err != nil {
		return CXXStandard{}, nil, replyError(reply, index, err)
	}
	if model == "" {
		return CXXStandard{From: "the build's code model predates mlxbuild's query (configure again to have it)"}, nil, nil
	}
	if data, err = read(model); err != nil {
		return CXXStandard{}, nil, err
	}
	files, err := parseCodemodel(data)
	if err != nil {
		return CXXStandard{}, nil, replyError(reply, model, err)
	}
	var best CXXStandard
	bestRank := 0
	var seen []string
	for _, t := range targets {
		file, ok := files[t]
		if !ok {
			continue
		}
		seen = append(seen, t)
		if data, err = read(file); err != nil {
			return CXXStandard{}, nil, err
		}
		std, err := parseTargetStd(data)
		if err != nil {
			return CXXStandard{}, nil, replyError(reply, file, err)
		}
		if r := stdRank(std); r > bestRank {
			bestRank = r
			best = CXXStandard{Std: "c++" + std, From: fmt.Sprintf("CMake: target %s compiles as C++%s (its code model)", t, std)}
		}
	}
	switch {
	case len(seen) == 0:
		best.From = fmt.Sprintf("CMake's code model has no target %s", strings.Join(targets, ", "))
	case best.Std == "":
		best.From = fmt.Sprintf("CMake sets no C++ standard for %s", strings.Join(seen, ", "))
	}
	return best, readKeys, nil
}

func replyError(dir, name string, err error) error {
	return fmt.Errorf("%s: %v; configure again (cache:clean, then build)", filepath.Join(dir, name), err)
}

// parseIndex is the code model's file name in an index file, "" when the
// index holds no reply to mlxbuild's query.
func parseIndex(data []byte) (string, error) {
	var idx struct {
		Reply map[string]json.RawMessage `json:"reply"`
	}
	if err := json.Unmarshal(data, &idx); err != nil {
		return "", err
	}
	raw, ok := idx.Reply[fileAPIClient]
	if !ok {
		return "", nil
	}
	var client map[string]struct {
		JSONFile string `json:"jsonFile"`
	}
	if err := json.Unmarshal(raw, &client); err != nil {
		return "", err
	}
	name := client["codemodel-v2"].JSONFile
	return name, plainName(name)
}

// parseCodemodel maps the first configuration's target names to their
// files (Ninja builds one configuration).
func parseCodemodel(data []byte) (map[string]string, error) {
	var cm struct {
		Configurations []struct {
			Targets []struct {
				Name     string `json:"name"`
				JSONFile string `json:"jsonFile"`
			} `json:"targets"`
		} `json:"configurations"`
	}
	if err := json.Unmarshal(data, &cm); err != nil {
		return nil, err
	}
	files := map[string]string{}
	if len(cm.Configurations) == 0 {
		return files, nil
	}
	for _, t := range cm.Configurations[0].Targets {
		if err := plainName(t.JSONFile); err != nil {
			return nil, err
		}
		files[t.Name] = t.JSONFile
	}
	return files, nil
}

// parseTargetStd is the newest standard of a target's C++ compile groups
// ("20"), "" when none sets one.
func parseTargetStd(data []byte) (string, error) {
	var t struct {
		CompileGroups []struct {
			Language         string `json:"language"`
			LanguageStandard *struct {
				Standard string `json:"standard"`
			} `json:"languageStandard"`
		} `json:"compileGroups"`
	}
	if err := json.Unmarshal(data, &t); err != nil {
		return "", err
	}
	best := ""
	for _, g := range t.CompileGroups {
		if g.Language != "CXX" || g.LanguageStandard == nil {
			continue
		}
		s := g.LanguageStandard.Standard
		if stdRank(s) == 0 {
			//lint:ignore ST1005 "C++" is the language's name; lower case would misname it.
			return "", fmt.Errorf("C++ standard %q is not a two-digit year", s)
		}
		if stdRank(s) > stdRank(best) {
			best = s
		}
	}
	return best, nil
}

// stdRank orders two-digit standards (98 before 11); 0 for anything else.
func stdRank(s string) int {
	if len(s) != 2 || s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9' {
		return 0
	}
	n, _ := strconv.Atoi(s)
	if n >= 90 {
		return 1900 + n
	}
	return 2000 + n
}

// plainName refuses a reply file name that would leave the reply
// directory: CMake writes plain names.
func plainName(name string) error {
	if strings.ContainsAny(name, `/\`) || name == ".." || name == "." {
		return fmt.Errorf("file name %q is not a plain name in the reply directory", name)
	}
	return nil
}
