package cmakecache

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// cmakeWrote is the head of a CMakeCache.txt that CMake 3.25 wrote for the
// example's ROCm build, cut to the kinds of line it holds.
const cmakeWrote = `# This is the CMakeCache file.
# For build in directory: /tmp/x/cache/rocm/build
# You can edit this file to change values found and used by cmake.

########################
# EXTERNAL cache entries
########################

//Path to a program.
CMAKE_AR:FILEPATH=/usr/bin/ar

//Choose the type of build, options are: None Debug Release RelWithDebInfo
// MinSizeRel ...
CMAKE_BUILD_TYPE:STRING=Release

//No help, variable specified on the command line.
CMAKE_HIP_COMPILER:UNINITIALIZED=/tmp/x/rocm2/bin/clang++-15

//Build the ROCm backend (needs the ROCm overlay)
MLX_BUILD_ROCM:BOOL=OFF

//A name CMake must quote
"odd:name=x":STRING=quoted name

//A value with trailing blanks
PADDED:STRING='two blanks  '

UNTYPED=plain

########################
# INTERNAL cache entries
########################

//ADVANCED property for variable: CMAKE_AR
CMAKE_AR-ADVANCED:INTERNAL=1
//Name of generator.
CMAKE_GENERATOR:INTERNAL=Ninja
//Source directory with the top level CMakeLists.txt file for this
// project
CMAKE_HOME_DIRECTORY:INTERNAL=/tmp/x/cache/rocm/tree
`

func TestParseReadsWhatCMakeWrites(t *testing.T) {
	c, err := Parse("CMakeCache.txt", []byte(strings.ReplaceAll(cmakeWrote, "\n", "\r\n")))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]Entry{
		"CMAKE_AR":             {Name: "CMAKE_AR", Type: "FILEPATH", Value: "/usr/bin/ar", Line: 10},
		"CMAKE_BUILD_TYPE":     {Name: "CMAKE_BUILD_TYPE", Type: "STRING", Value: "Release", Line: 14},
		"CMAKE_HIP_COMPILER":   {Name: "CMAKE_HIP_COMPILER", Type: "UNINITIALIZED", Value: "/tmp/x/rocm2/bin/clang++-15", Line: 17},
		"MLX_BUILD_ROCM":       {Name: "MLX_BUILD_ROCM", Type: "BOOL", Value: "OFF", Line: 20},
		"odd:name=x":           {Name: "odd:name=x", Type: "STRING", Value: "quoted name", Line: 23},
		"PADDED":               {Name: "PADDED", Type: "STRING", Value: "two blanks  ", Line: 26},
		"UNTYPED":              {Name: "UNTYPED", Type: "UNINITIALIZED", Value: "plain", Line: 28},
		"CMAKE_GENERATOR":      {Name: "CMAKE_GENERATOR", Type: "INTERNAL", Value: "Ninja", Line: 37},
		"CMAKE_HOME_DIRECTORY": {Name: "CMAKE_HOME_DIRECTORY", Type: "INTERNAL", Value: "/tmp/x/cache/rocm/tree", Line: 40},
	} {
		if got, ok := c.Get(name); !ok || got != want {
			t.Errorf("Get(%q) = %+v, %v; want %+v", name, got, ok, want)
		}
	}
	if c.Len() != 9 {
		t.Errorf("%d entries, want 9 (CMAKE_AR-ADVANCED is a property, not an entry)", c.Len())
	}
	if _, ok := c.Get("CMAKE_AR-ADVANCED"); ok {
		t.Error("CMAKE_AR-ADVANCED read as an entry")
	}
	if c.On("MLX_BUILD_ROCM") || c.On("NOT_THERE") {
		t.Error("On reads OFF or an absent entry as on")
	}
}

func TestParseLaterEntryWins(t *testing.T) {
	c, err := Parse("c", []byte("X:BOOL=OFF\n  X:BOOL=yes\n"))
	if err != nil {
		t.Fatal(err)
	}
	if e, _ := c.Get("X"); e.Value != "yes" || e.Line != 2 || !c.On("X") {
		t.Errorf("X = %+v, want the second line's yes", e)
	}
}

func TestParseNamesTheBadLine(t *testing.T) {
	for text, want := range map[string]string{
		"A:BOOL=ON\nthis line is damaged\n": "c:2:1: \"this line is damaged\" is no cache entry (NAME:TYPE=VALUE): it has no '='",
		"A:BOOL=ON\n   NAME:TYPE\n":         "c:2:4: \"NAME:TYPE\" is no cache entry",
		"\"unterminated:STRING=x\n":         "c:1:1: ",
		"\"q\"junk=x\n":                     "c:1:4: ",
	} {
		_, err := Parse("c", []byte(text))
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "cache:clean") {
			t.Errorf("Parse(%q) = %v, want an error starting %q that says what to do", text, err, want)
		}
	}
}

func TestReadAbsentIsNil(t *testing.T) {
	dir := t.TempDir()
	if c, err := Read(dir); c != nil || err != nil {
		t.Fatalf("Read of a directory without a cache: %v, %v", c, err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("MLX_BUILD_CUDA:BOOL=TRUE\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Read(dir)
	if err != nil || !c.On("MLX_BUILD_CUDA") || c.Path != filepath.Join(dir, FileName) {
		t.Fatalf("Read: %+v, %v", c, err)
	}
}

func TestBoolSpellings(t *testing.T) {
	for _, v := range []string{"ON", "on", "TRUE", "True", "1", "YES", "y"} {
		if on, ok := Bool(v); !on || !ok {
			t.Errorf("Bool(%q) = %v, %v; want true", v, on, ok)
		}
	}
	for _, v := range []string{"OFF", "false", "0", "NO", "n", "IGNORE", "NOTFOUND", "", "FOO-NOTFOUND"} {
		if on, ok := Bool(v); on || !ok {
			t.Errorf("Bool(%q) = %v, %v; want false", v, on, ok)
		}
	}
	for _, v := range []string{"/usr/bin/clang++", "2", "gfx1030", "ONN"} {
		if _, ok := Bool(v); ok {
			t.Errorf("Bool(%q) reads as a boolean", v)
		}
	}
	for _, c := range []struct {
		want, have string
		same       bool
	}{{"ON", "TRUE", true}, {"ON", "1", true}, {"OFF", "NO", true}, {"ON", "OFF", false}, {"/a", "/a", true}, {"/a", "/b", false}, {"gfx1030", "GFX1030", false}, {"ON", "", false}} {
		if Same(c.want, c.have) != c.same {
			t.Errorf("Same(%q, %q) = %v", c.want, c.have, !c.same)
		}
	}
}

func TestCompare(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	c, err := Parse("c", []byte("ON_AS_TRUE:BOOL=TRUE\nOFF:BOOL=OFF\nREL:PATH="+filepath.Join(wd, "deps/x")+";/abs\nRELSTR:STRING="+filepath.Join(wd, "deps/x")+"\nHOME:INTERNAL=/a\nCMAKE_HOME_DIRECTORY:INTERNAL="+wd+"/.\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := c.Compare(map[string]string{"ON_AS_TRUE": "ON", "OFF": "ON", "REL": "deps/x;/abs", "RELSTR": "deps/x", "MISSING": "1", "CMAKE_HOME_DIRECTORY": wd})
	want := []Mismatch{{Name: "MISSING", Want: "1", Absent: true}, {Name: "OFF", Want: "ON", Have: "OFF"}, {Name: "RELSTR", Want: "deps/x", Have: filepath.Join(wd, "deps/x")}}
	if !slices.Equal(got, want) {
		t.Errorf("Compare = %+v\nwant %+v", got, want)
	}
}
