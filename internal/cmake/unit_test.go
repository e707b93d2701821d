package cmake

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

func TestConfigureArgs(t *testing.T) {
	args, err := ConfigureArgs(ConfigureOptions{Source: "/s", Build: "/b", Defines: map[string]string{
		"MLX_BUILD_ROCM":          "ON",
		"CMAKE_HIP_ARCHITECTURES": "gfx1030;gfx90a",
		"CMAKE_BUILD_TYPE":        "RelWithDebInfo",
	}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"-S", "/s", "-B", "/b", "-G", "Ninja",
		"-DCMAKE_BUILD_TYPE=RelWithDebInfo",
		"-DCMAKE_EXPORT_COMPILE_COMMANDS=ON",
		"-DCMAKE_HIP_ARCHITECTURES=gfx1030;gfx90a",
		"-DMLX_BUILD_ROCM=ON"}
	if !reflect.DeepEqual(args, want) {
		t.Errorf("args\n got %q\nwant %q", args, want)
	}
	// Defaults, and EXPORT_COMPILE_COMMANDS cannot be turned off.
	args, _ = ConfigureArgs(ConfigureOptions{Source: "/s", Build: "/b", Defines: map[string]string{"CMAKE_EXPORT_COMPILE_COMMANDS": "OFF"}})
	if got := strings.Join(args[6:], " "); got != "-DCMAKE_BUILD_TYPE=Release -DCMAKE_EXPORT_COMPILE_COMMANDS=ON" {
		t.Errorf("defaults: %s", got)
	}
	for _, bad := range []string{"A B", "-DX", "X=Y", ""} {
		if _, err := ConfigureArgs(ConfigureOptions{Defines: map[string]string{bad: "1"}}); err == nil {
			t.Errorf("define key %q accepted", bad)
		}
	}
	if _, err := ConfigureArgs(ConfigureOptions{Defines: map[string]string{"X": "a\nb"}}); err == nil {
		t.Error("a value with a line break was accepted")
	}
}

func TestParseDiagnostics(t *testing.T) {
	// Lines as gcc 12, clang 15, nvcc 12 and ld 2.40 print them.
	log := strings.Join([]string{
		"[mlxbuild 3/10] Building HIP object mlx/backend/rocm/CMakeFiles/mlx_rocm_kernels.dir/reduce.hip.o",
		"FAILED: mlx/backend/rocm/CMakeFiles/mlx_rocm_kernels.dir/reduce.hip.o",
		"/tree/mlx/backend/rocm/reduce.hip:12:26: error: expected expression",
		"int mlxbuild_planted = ;",
		"/tree/mlx/backend/rocm/reduce.hip:12:26: error: expected expression",
		"/tree/mlx/c_api.cpp:3:10: fatal error: missing.h: No such file or directory",
		"/tree/mlx/backend/cuda/binary.cu(17): error: identifier \"foo\" is undefined",
		"/usr/bin/ld: main.o: in function `main':",
		"main.cpp:(.text+0x1d): undefined reference to `mlx_add'",
		"collect2: error: ld returned 1 exit status",
		"ninja: build stopped: subcommand failed.",
	}, "\n")
	got := ParseDiagnostics(log)
	want := []string{
		"/tree/mlx/backend/rocm/reduce.hip:12:26: error: expected expression",
		"/tree/mlx/c_api.cpp:3:10: error: missing.h: No such file or directory",
		"/tree/mlx/backend/cuda/binary.cu:17: error: identifier \"foo\" is undefined",
		"error: main.cpp:(.text+0x1d): undefined reference to `mlx_add'",
		"error: ld returned 1 exit status",
	}
	var gotS []string
	for _, d := range got {
		gotS = append(gotS, d.String())
	}
	if !reflect.DeepEqual(gotS, want) {
		t.Errorf("diagnostics\n got %q\nwant %q", gotS, want)
	}
	if got[0].File != "/tree/mlx/backend/rocm/reduce.hip" || got[0].Line != 12 || got[0].Col != 26 {
		t.Errorf("first diagnostic: %+v", got[0])
	}
}

func TestFirstCMakeError(t *testing.T) {
	out := "-- Configuring incomplete, errors occurred!\n" +
		"CMake Error at CMakeLists.txt:53 (message):\n" +
		"  MLX_BUILD_ROCM=ON but mlx/backend/rocm is missing: this is the pristine\n" +
		"  source.\n\n\n-- Configuring incomplete\n"
	if got := firstCMakeError(out, "/src"); got != "/src/CMakeLists.txt:53: MLX_BUILD_ROCM=ON but mlx/backend/rocm is missing: this is the pristine source." {
		t.Errorf("got %q", got)
	}
	if got := firstCMakeError("CMake Error: The source directory \"/x\" does not exist.\n", "/src"); got != "The source directory \"/x\" does not exist." {
		t.Errorf("got %q", got)
	}
	if got := firstCMakeError("-- all fine\n", "/src"); got != "" {
		t.Errorf("got %q", got)
	}
}

// ninjaOutput is what Ninja 1.11 printed for a ROCm build of the example,
// with NINJA_STATUS set and a compiler warning between status lines.
const ninjaOutput = `ninja: Entering directory ` + "`" + `/b'
[mlxbuild 1/4] Building CXX object CMakeFiles/mlx.dir/mlx/c_api.cpp.o
[mlxbuild 2/4] Building HIP object mlx/backend/rocm/CMakeFiles/mlx_rocm_kernels.dir/binary.hip.o
/t/mlx/backend/rocm/binary.hip:9:5: warning: unused variable 'x' [-Wunused-variable]
[1 warning generated]
[mlxbuild 3/4] Linking HIP static library libmlx_rocm_kernels.a
[mlxbuild 4/4] Linking CXX static library libmlx.a
`

func TestProgressPlain(t *testing.T) {
	var log, out bytes.Buffer
	p := newProgress(&log, &out, false, 0)
	// Split mid-line, as pipes do.
	p.Write([]byte(ninjaOutput[:100]))
	p.Write([]byte(ninjaOutput[100:]))
	p.finish()
	want := "[1/4] CXX mlx/c_api.cpp\n[2/4] HIP mlx/backend/rocm/binary.hip\n[3/4] LINK libmlx_rocm_kernels.a\n[4/4] LINK libmlx.a\n"
	if out.String() != want {
		t.Errorf("progress\n got %q\nwant %q", out.String(), want)
	}
	if log.String() != ninjaOutput {
		t.Error("the log is not Ninja's output byte for byte")
	}
	if len(p.steps) != 4 || p.steps[1].Kind != "HIP" || p.steps[1].Output != "mlx/backend/rocm/CMakeFiles/mlx_rocm_kernels.dir/binary.hip.o" || p.total != 4 {
		t.Errorf("steps %+v total %d", p.steps, p.total)
	}
}

func TestProgressTTY(t *testing.T) {
	var log, out bytes.Buffer
	p := newProgress(&log, &out, true, 31)
	p.Write([]byte(ninjaOutput))
	p.finish()
	want := "\r\x1b[K[1/4] CXX mlx/c_api.cpp" +
		"\r\x1b[K[2/4] HIP ...d/rocm/binary.hip" +
		"\r\x1b[K[3/4] LINK ...x_rocm_kernels.a" +
		"\r\x1b[K[4/4] LINK libmlx.a\n"
	if out.String() != want {
		t.Errorf("TTY progress\n got %q\nwant %q", out.String(), want)
	}
}

func TestJobsFor(t *testing.T) {
	const gib = 1024 * 1024 // KiB
	cases := []struct {
		cores  int
		avail  uint64
		perJob float64
		want   int
	}{
		{16, 64 * gib, 0, 16},  // memory not limiting
		{16, 64 * gib, 5, 12},  // 64/5 = 12.8
		{16, 8 * gib, 5, 1},    // 8/5 = 1.6
		{16, 2 * gib, 5, 1},    // never below one
		{2, 0, 5, 2},           // MemAvailable unknown
		{4, 100 * gib, 0.5, 4}, // cores limiting
	}
	for _, c := range cases {
		if got := jobsFor(c.cores, c.avail, c.perJob); got != c.want {
			t.Errorf("jobsFor(%d, %d KiB, %g GiB) = %d, want %d", c.cores, c.avail, c.perJob, got, c.want)
		}
	}
	kib, err := memAvailableKiB("testdata/meminfo")
	if err != nil || kib != 24280544 {
		t.Errorf("memAvailableKiB(testdata/meminfo) = %d, %v", kib, err)
	}
	if DefaultJobs(0) < 1 || DefaultJobs(1e6) != 1 {
		t.Errorf("DefaultJobs: %d with no limit, %d with 1 PiB per job", DefaultJobs(0), DefaultJobs(1e6))
	}
}

// TestParseStepNames: progress shows the source an edge compiles, short;
// a dependency unpacked in the store is named by its path inside it, not
// by the store's absolute path CMake folds into the object name.
func TestParseStepNames(t *testing.T) {
	sha := strings.Repeat("89cb", 16)
	for _, c := range []struct{ desc, want string }{
		{"Building CXX object CMakeFiles/mlx.dir/mlx/array.cpp.o", "CXX mlx/array.cpp"},
		{"Building C object mlx/io/CMakeFiles/gguflib.dir/tmp/h200/real/cache/deps/src/" + sha + "/fp16.c.o", "C gguflib/fp16.c"},
		{"Building CXX object _deps/fmt-build/CMakeFiles/fmt.dir/src/os.cc.o", "CXX _deps/fmt-build/src/os.cc"},
		{"Linking CXX static library libmlx.a", "LINK libmlx.a"},
		{"Generating gen/cuda_jit_sources.h", "Generating gen/cuda_jit_sources.h"},
	} {
		if got := parseStep(c.desc).Display; got != c.want {
			t.Errorf("parseStep(%q) = %q, want %q", c.desc, got, c.want)
		}
	}
}

// firstCMakeError returns CMake's first error as "file:line: text", or ""
// when there is none (see cmakeError).
func firstCMakeError(out, source string) string {
	d, ok := cmakeError(out, source)
	if !ok {
		return ""
	}
	return d.located()
}

// TestParseDiagnosticsToolErrors: a program's own error is read whatever its
// name, path or version suffix (Debian names its compilers clang++-21,
// g++-12, clang-15), not only the plain names.
func TestParseDiagnosticsToolErrors(t *testing.T) {
	for _, c := range []struct{ line, want string }{
		{"clang++-21: error: unknown argument: '-parallel-jobs=8'", "unknown argument: '-parallel-jobs=8'"},
		{"clang-15: error: no such file or directory: 'x.hip'", "no such file or directory: 'x.hip'"},
		{"g++-12: error: unrecognized command-line option '-foo'", "unrecognized command-line option '-foo'"},
		{"/usr/bin/hipcc: error: cannot find ROCm device library", "cannot find ROCm device library"},
		{"nvcc: error: failed preprocessing", "failed preprocessing"},
		{"cc1plus: fatal error: out of memory", "out of memory"},
		{"clang++: error: linker command failed", "linker command failed"},
		{"ninja: error: loading 'build.ninja'", "loading 'build.ninja'"},
	} {
		got := ParseDiagnostics(c.line)
		if len(got) != 1 || got[0].Message != c.want || got[0].File != "" {
			t.Errorf("ParseDiagnostics(%q) = %+v, want the message %q", c.line, got, c.want)
		}
	}
	if got := ParseDiagnostics("-- The CXX compiler identification is GNU 12.2.0\nerror: no tool named"); len(got) != 0 {
		t.Errorf("lines that are no program's error were read: %+v", got)
	}
}

// TestParseDiagnosticsInstantiationContext: an error that gcc 12 and
// clang 15 report inside libstdc++ (a constructor that no longer takes its
// arguments, reached through std::make_shared) carries the places that led
// there, and the user's file is among them: gcc's "required from here"
// before the error, clang's "in instantiation ... requested here" notes
// after it (real output of both, recorded here).
func TestParseDiagnosticsInstantiationContext(t *testing.T) {
	for _, name := range []string{"gcc12-required-from.txt", "clang15-instantiation.txt"} {
		data, err := os.ReadFile(filepath.Join("testdata", "diag", name))
		if err != nil {
			t.Fatal(err)
		}
		ds := ParseDiagnostics(string(data))
		if len(ds) == 0 {
			t.Fatalf("%s: no diagnostic", name)
		}
		// clang gives the instantiation notes to the first error only;
		// the next one's notes name the header that declares the
		// constructors.
		for i, d := range ds {
			if !strings.Contains(d.File, "/usr/") {
				t.Errorf("%s: %+v is not in a system header", name, d)
			}
			user, here := false, false
			for _, v := range d.Via {
				user = user || strings.HasPrefix(v.File, "/tree/")
				here = here || v.File == "/tree/mlx/backend/rocm/custom_kernel.cpp" && v.Line == 5
			}
			if !user || i == 0 && !here {
				t.Errorf("%s: %s does not lead to the tree (custom_kernel.cpp:5 for the first): %+v", name, d, d.Via)
			}
		}
	}
}

// TestCMakeErrorInFetchContentSubbuild: FetchContent's sub-build names its
// script relative to <build>/_deps (CMake 3.25's real output offline): the
// error names the file there, not a file of the source tree that does not
// exist.
func TestCMakeErrorInFetchContentSubbuild(t *testing.T) {
	source, build := t.TempDir(), t.TempDir()
	script := filepath.Join(build, "_deps", "json-subbuild", "json-populate-prefix", "src", "json-populate-stamp", "download-json-populate.cmake")
	if err := os.MkdirAll(filepath.Dir(script), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(script, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	out := "[1/9] Performing download step (download, verify and extract) for 'json-populate'\n" +
		"CMake Error at json-subbuild/json-populate-prefix/src/json-populate-stamp/download-json-populate.cmake:170 (message):\n" +
		"  Each download failed!\n"
	d, ok := cmakeError(out, source, filepath.Join(build, "_deps"))
	if !ok || d.File != script || d.Line != 170 || d.Message != "Each download failed!" {
		t.Errorf("cmakeError = %+v, %v; want %s:170", d, ok, script)
	}
}

// TestParseDiagnosticsWarningEndsChain: gcc prints a warning's own
// instantiation context ("In instantiation of" / "required from here")
// before it; that chain is the warning's, not the next error's, whose own
// chain (after its own context header) leads to the unit's .cpp. An error
// after a warning's chain, without one of its own, has none. clang's notes
// after a warning are the warning's, not the error's before it. (Stand-in
// logs shaped like gcc 16's and clang 21's on the ROCm fork.)
func TestParseDiagnosticsWarningEndsChain(t *testing.T) {
	read := func(name string) []Diagnostic {
		data, err := os.ReadFile(filepath.Join("testdata", "diag", name))
		if err != nil {
			t.Fatal(err)
		}
		return ParseDiagnostics(string(data))
	}
	ds := read("gcc-warning-then-error.txt")
	if len(ds) != 2 {
		t.Fatalf("gcc: %d diagnostics, want 2: %+v", len(ds), ds)
	}
	want := []fail.Pos{
		{File: "/usr/include/c++/12/bits/alloc_traits.h", Line: 850, Col: 19},
		{File: "/tree/mlx/backend/rocm/maker.cpp", Line: 9, Col: 30},
		{File: "/usr/include/c++/12/bits/stl_construct.h", Line: 94, Col: 5},
	}
	if !reflect.DeepEqual(ds[0].Via, want) {
		t.Errorf("gcc: the constructor error's context is %+v, want %+v (no warning's)", ds[0].Via, want)
	}
	if ds[1].File != "/tree/mlx/backend/rocm/maker.cpp" || len(ds[1].Via) != 0 {
		t.Errorf("gcc: the second error %+v carries the warning's chain", ds[1])
	}
	ds = read("clang-error-then-warning.txt")
	if len(ds) != 1 || len(ds[0].Via) != 0 {
		t.Errorf("clang: %+v; want one error with no context (the notes after the warning are the warning's)", ds)
	}
}
