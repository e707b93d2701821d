package verify

import (
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/proc"
)

// linkFixture builds, with the real gcc, a stub shared library in a fake
// prefix (as tests do for the ROCm libraries Debian lacks) and returns the
// prefix.
func linkFixture(t *testing.T) string {
	t.Helper()
	prefix := t.TempDir()
	writeFile(t, prefix, "src/stub.c", "int mlxstub_answer(void) { return 42; }\n")
	writeFile(t, prefix, "src/main.c", "int mlxstub_answer(void);\nint main(void) { return mlxstub_answer() == 42 ? 0 : 1; }\n")
	if err := os.MkdirAll(filepath.Join(prefix, "lib"), 0o755); err != nil {
		t.Fatal(err)
	}
	gcc(t, "-shared", "-fPIC", "-Wl,-soname,libmlxstub.so.1", "-o", filepath.Join(prefix, "lib", "libmlxstub.so.1"), filepath.Join(prefix, "src", "stub.c"))
	if err := os.Symlink("libmlxstub.so.1", filepath.Join(prefix, "lib", "libmlxstub.so")); err != nil {
		t.Fatal(err)
	}
	return prefix
}

func gcc(t *testing.T, args ...string) {
	t.Helper()
	path, err := exec.LookPath("gcc")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("gcc not installed")
		}
		t.Fatal("gcc not found; CI installs it")
	}
	if _, err := proc.Run(context.Background(), proc.Cmd{Path: path, Args: args}); err != nil {
		t.Fatalf("gcc: %v", err)
	}
}

// linkMain links src/main.c against the stub with extra linker flags.
func linkMain(t *testing.T, prefix, out string, flags ...string) string {
	t.Helper()
	bin := filepath.Join(prefix, "bin", out)
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	args := append([]string{"-o", bin, filepath.Join(prefix, "src", "main.c"), "-L" + filepath.Join(prefix, "lib"), "-lmlxstub"}, flags...)
	gcc(t, args...)
	return bin
}

func TestLinkWithRunpath(t *testing.T) {
	prefix := linkFixture(t)
	lib := filepath.Join(prefix, "lib")
	bin := linkMain(t, prefix, "with-runpath", "-Wl,-rpath,"+lib)
	r := mustPass(t, Link{Files: []string{bin}, Needed: []string{"libmlxstub", "libc.so"}, Runpath: []string{lib}})
	if r.Reason != "1 file checked" {
		t.Errorf("reason = %q", r.Reason)
	}
	// DT_RPATH (--disable-new-dtags) and $ORIGIN-relative run paths count too.
	bin = linkMain(t, prefix, "with-rpath", "-Wl,--disable-new-dtags,-rpath,"+lib)
	mustPass(t, Link{Files: []string{bin}, Needed: []string{"libmlxstub"}, Runpath: []string{lib}})
	bin = linkMain(t, prefix, "with-origin", "-Wl,-rpath,$ORIGIN/../lib")
	mustPass(t, Link{Files: []string{bin}, Needed: []string{"libmlxstub"}, Runpath: []string{lib}})
	mustPass(t, Link{Files: []string{filepath.Join(prefix, "bin", "with-*")}, Needed: []string{"libmlxstub"}, Runpath: []string{lib}})
}

func TestLinkMissingRunpath(t *testing.T) {
	prefix := linkFixture(t)
	lib := filepath.Join(prefix, "lib")
	bin := linkMain(t, prefix, "no-runpath")
	r := mustFind(t, Link{Files: []string{bin}, Needed: []string{"libmlxstub"}, Runpath: []string{lib}}, "no-runpath", "RUNPATH/RPATH has no "+lib)
	mustFind(t, Link{Files: []string{bin}}, "no-runpath", "libmlxstub.so.1 does not resolve with LD_LIBRARY_PATH unset")
	if len(r.Findings) != 2 {
		t.Errorf("want the missing run path and the unresolved library:\n%s", findingsText(r))
	}
	// The loader agrees: the binary does not start without LD_LIBRARY_PATH.
	if _, err := proc.Run(context.Background(), proc.Cmd{Path: bin, Env: cleanEnv()}); err == nil {
		t.Errorf("%s started without its run path; the fixture proves nothing", bin)
	}
}

func TestLinkMissingNeeded(t *testing.T) {
	prefix := linkFixture(t)
	bin := linkMain(t, prefix, "plain", "-Wl,-rpath,"+filepath.Join(prefix, "lib"))
	r := mustFind(t, Link{Files: []string{bin}, Needed: []string{"libamdhip64"}}, "plain", "NEEDED has no libamdhip64 (has: libmlxstub.so.1")
	if !strings.Contains(r.Findings[0].Fix, "-lamdhip64") {
		t.Errorf("fix = %q", r.Findings[0].Fix)
	}
	mustFind(t, Link{Files: []string{filepath.Join(prefix, "src", "stub.c")}}, "stub.c", "not a readable ELF file")
	if r := run(t, Link{Files: []string{filepath.Join(prefix, "bin", "absent")}}); r.Status != Skip {
		t.Errorf("absent output: %v, want skip", r.Status)
	}
}

// TestLinkReadsWhatReadelfShows cross-checks the dynamic section read by
// debug/elf with readelf -d on the same binary.
func TestLinkReadsWhatReadelfShows(t *testing.T) {
	readelf, err := exec.LookPath("readelf")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("readelf not installed")
		}
		t.Fatal("readelf not found")
	}
	prefix := linkFixture(t)
	bin := linkMain(t, prefix, "x", "-Wl,-rpath,/opt/x/lib:"+filepath.Join(prefix, "lib"))
	res, err := proc.Run(context.Background(), proc.Cmd{Path: readelf, Args: []string{"-d", bin}})
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`\((NEEDED|RUNPATH)\)\s+\S+(?: \S+)*?: \[([^\]]*)\]`)
	var fromReadelf []string
	for _, m := range re.FindAllStringSubmatch(string(res.Stdout), -1) {
		fromReadelf = append(fromReadelf, m[1]+"="+m[2])
	}
	ef, err := elf.Open(bin)
	if err != nil {
		t.Fatal(err)
	}
	defer ef.Close()
	var fromGo []string
	needed, _ := ef.DynString(elf.DT_NEEDED)
	runpath, _ := ef.DynString(elf.DT_RUNPATH)
	for _, n := range needed {
		fromGo = append(fromGo, "NEEDED="+n)
	}
	for _, n := range runpath {
		fromGo = append(fromGo, "RUNPATH="+n)
	}
	if strings.Join(fromGo, "|") != strings.Join(fromReadelf, "|") || len(fromGo) < 3 {
		t.Errorf("debug/elf %v, readelf %v", fromGo, fromReadelf)
	}
}

// TestLinkRealHIPRuntime links against Debian's libamdhip64, which resolves
// through the loader cache with no run path.
func TestLinkRealHIPRuntime(t *testing.T) {
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/libamdhip64.so"); err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("libamdhip64-dev not installed")
		}
		t.Fatal("libamdhip64.so not found; CI installs libamdhip64-dev")
	}
	dir := t.TempDir()
	writeFile(t, dir, "hip.c", "int hipGetDeviceCount(int*);\nint main(void) { int n = 0; return hipGetDeviceCount(&n) ? 0 : 0; }\n")
	bin := filepath.Join(dir, "hip")
	gcc(t, "-o", bin, filepath.Join(dir, "hip.c"), "-lamdhip64")
	mustPass(t, Link{Files: []string{bin}, Needed: []string{"libamdhip64"}})
	mustFind(t, Link{Files: []string{bin}, Needed: []string{"libamdhip64"}, Runpath: []string{"/usr/lib/x86_64-linux-gnu"}}, "hip", "RUNPATH/RPATH has no /usr/lib/x86_64-linux-gnu")
}
