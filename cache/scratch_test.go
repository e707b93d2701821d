package cache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/cmakecache"
)

// TestDecideScratch: every input CMake cannot take into an existing cache
// empties the build directory first, named in one phrase; others only
// configure.
func TestDecideScratch(t *testing.T) {
	stamp := func(kv ...string) *Stamp {
		s := &Stamp{Inputs: map[string]string{"pin": "p1"}}
		for i := 0; i < len(kv); i += 2 {
			s.Inputs[kv[i]] = kv[i+1]
		}
		return s
	}
	cuda := stamp("toolchain.root", "/usr/local/cuda-12.4", "define:CMAKE_CUDA_COMPILER", "/usr/local/cuda-12.4/bin/nvcc", "define:CUDAToolkit_ROOT", "/usr/local/cuda-12.4", "toolchain.version", "12.4.1")
	done := func(s *Stamp) *ConfigureRecord { return &ConfigureRecord{Done: true, Inputs: configureInputs(s, nil)} }
	for _, c := range []struct {
		name string
		old  *Stamp
		cur  *Stamp
		cfg  *ConfigureRecord // nil: done(old)
		why  string           // "" for no scratch
	}{
		{"CUDA_HOME moves nvcc", cuda, stamp("toolchain.root", "/opt/cuda-13", "define:CMAKE_CUDA_COMPILER", "/opt/cuda-13/bin/nvcc", "define:CUDAToolkit_ROOT", "/opt/cuda-13", "toolchain.version", "13.0"), nil,
			"CMAKE_CUDA_COMPILER changed: /usr/local/cuda-12.4/bin/nvcc -> /opt/cuda-13/bin/nvcc"},
		{"a toolkit root alone", cuda, stamp("toolchain.root", "/usr/local/cuda-12.4", "define:CMAKE_CUDA_COMPILER", "/usr/local/cuda-12.4/bin/nvcc", "define:CUDAToolkit_ROOT", "/opt/other", "toolchain.version", "12.4.1"), nil,
			"CUDAToolkit_ROOT changed: /usr/local/cuda-12.4 -> /opt/other"},
		{"CC set", cuda, stamp("toolchain.root", "/usr/local/cuda-12.4", "define:CMAKE_CUDA_COMPILER", "/usr/local/cuda-12.4/bin/nvcc", "define:CUDAToolkit_ROOT", "/usr/local/cuda-12.4", "toolchain.version", "12.4.1", "env:CC", "clang-15"), nil,
			"environment's CC changed: (none) -> clang-15"},
		{"an upgrade under the same root", cuda, stamp("toolchain.root", "/usr/local/cuda-12.4", "define:CMAKE_CUDA_COMPILER", "/usr/local/cuda-12.4/bin/nvcc", "define:CUDAToolkit_ROOT", "/usr/local/cuda-12.4", "toolchain.version", "12.4.2"), nil,
			"toolchain.version changed: 12.4.1 -> 12.4.2"},
		{"a killed run that configured another compiler", cuda, cuda, done(stamp("define:CMAKE_CUDA_COMPILER", "/x/nvcc", "define:CUDAToolkit_ROOT", "/usr/local/cuda-12.4", "toolchain.root", "/usr/local/cuda-12.4", "toolchain.version", "12.4.1")),
			"CMAKE_CUDA_COMPILER changed: /x/nvcc -> /usr/local/cuda-12.4/bin/nvcc"},
		{"architectures only configure", stamp("architectures", "90a"), stamp("architectures", "100"), nil, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := c.cfg
			if cfg == nil {
				cfg = done(c.old)
			}
			d := Decide(BuildState{Old: c.old, Configured: cfg, BuildReady: true, Cur: c.cur})
			if !d.Configure || d.Scratch != (c.why != "") || c.why != "" && d.ConfigureWhy != c.why {
				t.Errorf("configure %v, scratch %v (%q); want scratch %q", d.Configure, d.Scratch, d.ConfigureWhy, c.why)
			}
			if c.why != "" && !strings.HasPrefix(d.Redo(), "configure from scratch") {
				t.Errorf("Redo() = %q", d.Redo())
			}
		})
	}
}

// TestDecideReadsTheCMakeCache: what CMake's cache holds counts too, the
// configure record being equal: a compiler, generator or source directory
// that differs empties the build directory, another entry that differs
// (or is missing) configures.
func TestDecideReadsTheCMakeCache(t *testing.T) {
	s := &Stamp{Inputs: map[string]string{"pin": "p1"}}
	tree := t.TempDir()
	link := filepath.Join(t.TempDir(), "tree-link")
	if err := os.Symlink(tree, link); err != nil {
		t.Fatal(err)
	}
	expect := map[string]string{"CMAKE_HIP_COMPILER": "/usr/bin/clang++-15", "MLX_BUILD_ROCM": "ON", "CMAKE_GENERATOR": "Ninja", "CMAKE_HOME_DIRECTORY": tree}
	decide := func(text string) Decision {
		t.Helper()
		c, err := cmakecache.Parse("CMakeCache.txt", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return Decide(BuildState{Old: s, Configured: &ConfigureRecord{Done: true, Inputs: configureInputs(s, nil)}, BuildReady: true, Cur: s, CMakeCache: c, Expect: expect})
	}
	good := "CMAKE_HIP_COMPILER:FILEPATH=/usr/bin/clang++-15\nMLX_BUILD_ROCM:BOOL=TRUE\nCMAKE_GENERATOR:INTERNAL=Ninja\nCMAKE_HOME_DIRECTORY:INTERNAL=" + link + "\n"
	if d := decide(good); d.Configure {
		t.Errorf("a cache that holds everything (TRUE for ON, the tree through a link): %+v", d)
	}
	for text, want := range map[string]string{
		strings.Replace(good, "/usr/bin/clang++-15", "/x/clang++", 1):         "scratch CMAKE_HIP_COMPILER changed: /x/clang++ -> /usr/bin/clang++-15",
		strings.Replace(good, "INTERNAL=Ninja", "INTERNAL=Unix Makefiles", 1): "scratch CMAKE_GENERATOR changed: Unix Makefiles -> Ninja",
		strings.Replace(good, link, "/elsewhere", 1):                          "scratch CMAKE_HOME_DIRECTORY changed: /elsewhere -> " + tree,
		strings.Replace(good, "BOOL=TRUE", "BOOL=OFF", 1):                     "configure CMakeCache.txt has MLX_BUILD_ROCM=OFF; this build sets ON",
		strings.Replace(good, "MLX_BUILD_ROCM:BOOL=TRUE\n", "", 1):            "configure CMakeCache.txt lacks MLX_BUILD_ROCM; this build sets ON",
	} {
		d := decide(text)
		got := "configure "
		if d.Scratch {
			got = "scratch "
		}
		if got += d.ConfigureWhy; !d.Configure || got != want {
			t.Errorf("%q: %v %q, want %q", text, d.Configure, got, want)
		}
	}
}

// TestDecideOlderRecordKeepsTheBuild: a configure record of an earlier
// mlxbuild did not record the HIP compiler it passed (Debian's layout), so
// the compiler is new to the record but not to CMake: with the CMake cache
// holding the same compiler the build is kept (an upgrade of mlxbuild must
// not cost a real fork build from scratch, about an hour on 2 cores); with
// another compiler there, the build directory is emptied.
func TestDecideOlderRecordKeepsTheBuild(t *testing.T) {
	old := &Stamp{Inputs: map[string]string{"pin": "p1"}}
	cur := &Stamp{Inputs: map[string]string{"pin": "p1", "define:CMAKE_HIP_COMPILER": "/usr/bin/clang++-21"}}
	expect := map[string]string{"CMAKE_HIP_COMPILER": "/usr/bin/clang++-21"}
	decide := func(text string) Decision {
		t.Helper()
		c, err := cmakecache.Parse("CMakeCache.txt", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		return Decide(BuildState{Old: old, Configured: &ConfigureRecord{Done: true, Inputs: configureInputs(old, nil)}, BuildReady: true, Cur: cur, CMakeCache: c, Expect: expect})
	}
	if d := decide("CMAKE_HIP_COMPILER:FILEPATH=/usr/bin/clang++-21\n"); d.Scratch {
		t.Errorf("the cache holds the compiler the record lacks: scratch (%q)", d.ConfigureWhy)
	}
	if d := decide("CMAKE_HIP_COMPILER:FILEPATH=/usr/bin/hipcc\n"); !d.Scratch || !strings.Contains(d.ConfigureWhy, "CMAKE_HIP_COMPILER changed") {
		t.Errorf("another compiler in the cache: scratch %v (%q)", d.Scratch, d.ConfigureWhy)
	}
}
