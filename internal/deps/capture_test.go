package deps

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestCaptureRecordsRequests: a configure with the capture provider
// records each FetchContent request with its declared details, as CMake
// expanded them (a tag in a variable), once per name, and goes on past a
// stand-in; Locate then finds each FetchContent_Declare call.
func TestCaptureRecordsRequests(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja")
	root := t.TempDir()
	src := filepath.Join(root, "src")
	testutil.WriteFile(t, filepath.Join(src, "CMakeLists.txt"), `cmake_minimum_required(VERSION 3.24)
project(p LANGUAGES NONE)
include(FetchContent)
set(LIB_TAG v2.4.12)
FetchContent_Declare(doctest GIT_REPOSITORY https://github.com/onqtam/doctest GIT_TAG ${LIB_TAG} GIT_SHALLOW TRUE)
FetchContent_MakeAvailable(doctest)
FetchContent_MakeAvailable(doctest)
add_subdirectory(sub)
`)
	testutil.WriteFile(t, filepath.Join(src, "sub", "CMakeLists.txt"), `
  FetchContent_Declare(
    json
    URL https://example.invalid/json.tar.xz URL_HASH SHA256=abc)
FetchContent_MakeAvailable(json)
`)
	captured := filepath.Join(root, "requests.txt")
	script := filepath.Join(root, "capture.cmake")
	testutil.WriteFile(t, script, CaptureScript(captured, filepath.Join(root, "stand-ins")))
	testutil.RunOK(t, nil, root, "cmake", "-S", src, "-B", filepath.Join(root, "build"), "-G", "Ninja",
		"-DCMAKE_PROJECT_TOP_LEVEL_INCLUDES="+script, "-DFETCHCONTENT_FULLY_DISCONNECTED=ON")
	reqs, err := ParseCapture([]byte(readFile(t, captured)))
	if err != nil {
		t.Fatal(err)
	}
	Locate(reqs, src)
	if len(reqs) != 2 {
		t.Fatalf("want 2 requests, got %+v", reqs)
	}
	d, j := reqs[0], reqs[1]
	if d.Name != "doctest" || d.Git != "https://github.com/onqtam/doctest" || d.Tag != "v2.4.12" || d.URL != "" || d.At.String() != filepath.Join(src, "CMakeLists.txt")+":5:1" {
		t.Errorf("doctest: %+v", d)
	}
	if j.Name != "json" || j.URL != "https://example.invalid/json.tar.xz" || j.URLHash != "SHA256=abc" || j.At.String() != filepath.Join(src, "sub", "CMakeLists.txt")+":2:3" {
		t.Errorf("json: %+v (at %s)", j, j.At)
	}
}

// TestProviderForcesSourceDirs: the provider puts each fetched directory
// in CMake's cache before the project runs, so a configure after the
// dependency moved does not keep FetchContent's cached old directory.
func TestProviderForcesSourceDirs(t *testing.T) {
	dep := configs.Dependency{Name: "GitLib", SHA256: strings.Repeat("a", 64), Providers: []string{"cache"}}
	script := ProviderScript([]Choice{{Dep: dep, Provider: "cache", Dir: "/c/deps/src/new"}})
	want := "set(FETCHCONTENT_SOURCE_DIR_GITLIB \"/c/deps/src/new\" CACHE PATH \"set by mlxbuild (internal/deps)\" FORCE)\nmacro("
	if !strings.Contains(script, want) {
		t.Errorf("the provider does not force the directory before its macro:\n%s", script)
	}
}

// FuzzParseCapture: no record file makes the parser panic; every request
// it returns has a name FetchContent accepts, each once.
func FuzzParseCapture(f *testing.F) {
	f.Add([]byte("request\tdoctest\t/src\narg\tGIT_REPOSITORY\narg\thttps://x\narg\tGIT_TAG\narg\tv1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		reqs, err := ParseCapture(data)
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, r := range reqs {
			if !validName(r.Name) || seen[strings.ToLower(r.Name)] {
				t.Fatalf("request %+v from %q", r, data)
			}
			seen[strings.ToLower(r.Name)] = true
		}
	})
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
