package linkplan

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadRealBuild reads the plan a real `mage build:rocm` of the bundled
// example left (testdata/rocm-minimlx holds its out/ directory as written),
// and renders it back into the very files that build wrote beside it.
func TestReadRealBuild(t *testing.T) {
	dir := filepath.Join("testdata", "rocm-minimlx")
	p, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if p.Backend != "rocm" || len(p.Static) != 2 || p.Env["MLXBUILD_GPU_ARCHITECTURES"] != "gfx1030;gfx90a" || p.Compile == nil || p.Compile.Std != "c++17" {
		t.Errorf("plan read wrong: %+v", p)
	}
	for file, got := range map[string]string{
		"link.json":    string(p.JSON()),
		"cargo.txt":    p.Cargo(),
		"ldflags.txt":  p.Ldflags(),
		"cxxflags.txt": p.Cxxflags(),
	} {
		want, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if got != string(want) {
			t.Errorf("%s rendered from the plan differs from the build's:\n got: %q\nwant: %q", file, got, want)
		}
	}
}

func TestReadMissingPlanSaysWhatToRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cuda", "out")
	_, err := Read(out)
	if err == nil || !strings.Contains(err.Error(), filepath.Join(out, FileName)) || !strings.Contains(err.Error(), "mage build:cuda") {
		t.Errorf("err = %v; want the file and `mage build:cuda`", err)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("err = %v; want it to be fs.ErrNotExist, so callers can tell not built from broken", err)
	}
}

// minimal is the smallest plan Decode accepts: every required key.
const minimal = `{
  "backend": "cpu",
  "static": [],
  "search_dirs": [],
  "dynamic": [],
  "system": [],
  "run_paths": [],
  "rpath_mode": "runpath",
  "rustc_env": {},
  "rerun_if_changed": [],
  "rerun_if_env_changed": [],
  "compile": {"std": "c++17", "include": [], "defines": []}
}
`

func TestDecodeMinimal(t *testing.T) {
	p, err := Decode("link.json", []byte(minimal))
	if err != nil {
		t.Fatal(err)
	}
	if p.Backend != "cpu" || p.Cxxflags() != "-std=c++17\n" {
		t.Errorf("plan = %+v, cxxflags %q", p, p.Cxxflags())
	}
}

// TestDecodeBadInput: each broken plan is refused with the position of the
// problem and what it is.
func TestDecodeBadInput(t *testing.T) {
	edit := func(old, new string) string {
		if !strings.Contains(minimal, old) {
			t.Fatalf("minimal has no %q", old)
		}
		return strings.Replace(minimal, old, new, 1)
	}
	for _, c := range []struct{ name, data, want string }{
		{"empty", "", "link.json:1:1: the file is empty"},
		{"white space only", " \n", "link.json:2:1: the file is empty"},
		{"not an object", "[1]", "link.json:1:1: a link plan is a JSON object"},
		{"trailing comma", edit(`"backend": "cpu",`, `"backend": "cpu",,`), "link.json:2:20: JSON syntax: invalid character ','"},
		{"cut short", minimal[:40], "link.json:4:3: the file ends inside the plan"},
		{"unknown key", edit(`"system": [],`, `"sytem": [],`), `link.json:6:3: unknown key "sytem"; known keys: backend, compile,`},
		{"unknown key in compile", edit(`"std": "c++17"`, `"stdd": "c++17"`), `link.json:12:15: unknown key "stdd" in compile`},
		{"key twice", edit(`"dynamic": [],`, `"dynamic": [], "dynamic": ["x"],`), `link.json:5:18: key "dynamic" appears twice`},
		{"wrong type", edit(`"static": [],`, `"static": "libmlx.a",`), "link.json:3:13: static must be a list of strings, not a JSON string"},
		{"wrong element type", edit(`"dynamic": [],`, `"dynamic": ["a", 7],`), "link.json:5:20: dynamic must be a string, not a JSON number"},
		{"wrong map value", edit(`"rustc_env": {}`, `"rustc_env": {"A": true}`), "link.json:9:22: rustc_env must be a string, not a JSON bool"},
		{"missing keys", edit(`"search_dirs": [],`, ``), `link.json:1:1: missing key "search_dirs"`},
		{"missing key in compile", edit(`"std": "c++17", `, ``), `link.json:1:1: missing key "std" in compile`},
		{"empty backend", edit(`"backend": "cpu"`, `"backend": ""`), "link.json:2:14: backend is empty"},
		{"unknown rpath mode", edit(`"runpath"`, `"rpath"`), `link.json:8:17: rpath_mode "rpath" is not one of runpath, legacy`},
		{"text after", minimal + "{}", "link.json:14:1: text after the plan's closing brace"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode("link.json", []byte(c.data))
			if err == nil || !strings.HasPrefix(err.Error(), c.want) {
				t.Errorf("err = %v\nwant it to start with %q", err, c.want)
			}
		})
	}
}
