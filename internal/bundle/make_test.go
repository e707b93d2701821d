package bundle

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/backends/linkplan"
	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

const fp = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// fixture is a fake toolchain (gcc-built libraries in tc/lib), a driver
// library in its own folder, and a program linked against them as the
// plan says, with the plan's run path.
type fixture struct {
	root, tc, driver, exe string
	in                    Input
}

func lib(t *testing.T, dir, soname, src string, extra ...string) {
	t.Helper()
	c := filepath.Join(t.TempDir(), "x.c")
	testutil.WriteFile(t, c, src)
	args := append([]string{"-shared", "-fPIC", "-Wl,-soname," + soname, "-o", filepath.Join(dir, soname), c}, extra...)
	testutil.RunOK(t, nil, dir, "gcc", args...)
	link := filepath.Join(dir, soname[:strings.Index(soname, ".so")+3])
	if link != filepath.Join(dir, soname) {
		os.Symlink(soname, link)
	}
}

func newFixture(t *testing.T, withFingerprint bool) *fixture {
	testutil.NeedTools(t, "gcc", "patchelf")
	f := &fixture{root: t.TempDir()}
	f.tc, f.driver = filepath.Join(f.root, "tc", "lib"), filepath.Join(f.root, "driver")
	for _, d := range []string{f.tc, f.driver, filepath.Join(f.root, "tc", "targets", "include", "sub")} {
		os.MkdirAll(d, 0o755)
	}
	// include/ is a link, as CUDA's is (to targets/x86_64-linux/include).
	testutil.WriteFile(t, filepath.Join(f.root, "tc", "targets", "include", "sub", "rt.h"), "#define RT 1\n")
	if err := os.Symlink(filepath.Join("targets", "include"), filepath.Join(f.root, "tc", "include")); err != nil {
		t.Fatal(err)
	}
	lib(t, f.tc, "libbar.so.2", "int bar(void){return 2;}\n")
	lib(t, f.tc, "libfoo.so.1", "int bar(void); int foo(void){return bar()+1;}\n", "-L"+f.tc, "-lbar")
	lib(t, f.tc, "libplug.so.3", "int plug(void){return 3;}\n")
	lib(t, f.driver, "libdrv.so.1", "int drv(void){return 0;}\n")
	src := "int foo(void); int drv(void);\n#include <stdio.h>\nint main(void){ printf(\"foo=%d drv=%d\\n\", foo(), drv()); return 0; }\n"
	if withFingerprint {
		src += "const char *tree = \"" + fp + "\";\nint use(void){ return tree[0]; }\n"
	}
	c := filepath.Join(f.root, "main.c")
	testutil.WriteFile(t, c, src)
	f.exe = filepath.Join(f.root, "app")
	testutil.RunOK(t, nil, f.root, "gcc", "-o", f.exe, c, "-L"+f.tc, "-L"+f.driver, "-lfoo", "-ldrv", "-Wl,-rpath,"+f.tc+":"+f.driver)
	f.in = Input{
		Plan: &linkplan.Plan{Backend: "rocm", SearchDirs: []string{f.tc, f.driver}, Dynamic: []string{"foo", "drv"}, RunPaths: []string{f.tc},
			RpathMode: "runpath", Env: map[string]string{"MLXBUILD_MLX_PIN": "81ba1c6a52d8b1e49e0e0a0de8c1a3c2e4c2b0a1", "MLXBUILD_GPU_ARCHITECTURES": "gfx1030;gfx90a"}},
		PlanFile:  "out/link.json",
		Policy:    &configs.BundlePolicy{Libraries: []string{"foo", "bar"}, Dlopen: []string{"plug"}, Driver: []string{"drv"}, Headers: []configs.BundleHeaders{{From: "{toolchain.root}/include", To: "include"}}},
		Toolchain: Toolchain{Name: "rocm", Version: "5.2.21153"}, ToolchainRoot: filepath.Join(f.root, "tc"),
		Executables: []string{f.exe}, Out: filepath.Join(f.root, "dist", "bundle"), SystemDirs: SystemDirs("/etc/ld.so.conf"),
	}
	if withFingerprint {
		f.in.Plan.TreeFingerprint = fp
	}
	return f
}

// TestMakeRelocates: the bundle holds the program with $ORIGIN/../lib as
// its only run path, the libraries the policy bundles (one needed by
// another, one loaded by dlopen) with $ORIGIN, the headers, and a manifest
// naming each library with how it comes; copied elsewhere with the
// toolchain gone, the program runs (the driver from the system's place).
func TestMakeRelocates(t *testing.T) {
	f := newFixture(t, true)
	m, err := Make(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	how := map[string]string{}
	for _, l := range m.Libraries {
		how[l.Soname] = l.How
	}
	want := map[string]string{"libfoo.so.1": Bundled, "libbar.so.2": Bundled, "libplug.so.3": Bundled, "libdrv.so.1": Driver, "libc.so.6": Required}
	for k, v := range want {
		if how[k] != v {
			t.Errorf("%s: %q, want %q (all: %v)", k, how[k], v, how)
		}
	}
	if m.Executables[0].LinkedBy != "tree_fingerprint" || m.MLXPin == "" || strings.Join(m.Architectures, ";") != "gfx1030;gfx90a" || m.Toolchain.Version != "5.2.21153" {
		t.Errorf("manifest facts: %+v", m)
	}
	o, err := readObject(filepath.Join(f.in.Out, "bin", "app"))
	if err != nil || strings.Join(o.runpath, ":") != "$ORIGIN/../lib" {
		t.Fatalf("bin/app run path %q (%v), want $ORIGIN/../lib", o.runpath, err)
	}
	if _, err := os.Stat(filepath.Join(f.in.Out, "include", "sub", "rt.h")); err != nil {
		t.Error(err)
	}
	data, _ := os.ReadFile(filepath.Join(f.in.Out, ManifestName))
	if back, err := decodeManifest("manifest.json", data); err != nil || len(back.Libraries) != len(m.Libraries) {
		t.Fatalf("the manifest written does not read back: %v", err)
	}
	moved := filepath.Join(t.TempDir(), "elsewhere")
	testutil.RunOK(t, nil, "", "cp", "-a", f.in.Out, moved)
	if err := os.RemoveAll(filepath.Join(f.root, "tc")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(filepath.Join(moved, "bin", "app"))
	cmd.Env = append(testutil.EnvWithout("LD_LIBRARY_PATH"), "LD_LIBRARY_PATH="+f.driver) // the driver is the target's
	out, err := cmd.CombinedOutput()
	if err != nil || string(out) != "foo=3 drv=0\n" {
		t.Fatalf("the moved bundle's program: %v\n%s", err, out)
	}

	// bundle:check: with the driver's folder among the loader's, it can
	// run; without, it names the driver's library and fails.
	rep, err := Check(context.Background(), moved, CheckOptions{SystemDirs: append([]string{f.driver}, SystemDirs("/etc/ld.so.conf")...), Arch: archEnv("gfx1030")})
	if err != nil || rep.Fails {
		t.Fatalf("check with everything here: %v %+v", err, rep)
	}
	rep, err = Check(context.Background(), moved, CheckOptions{SystemDirs: SystemDirs("/etc/ld.so.conf"), Arch: archEnv("gfx1100")})
	if err != nil || !rep.Fails || !strings.Contains(strings.Join(rep.Lines, "\n"), "libdrv.so.1 (driver, needed by app)") || !strings.Contains(strings.Join(rep.Lines, "\n"), "no code for gfx1100") {
		t.Fatalf("check without the driver, on a gfx1100: want a failure naming libdrv.so.1 and gfx1100, got %v %+v", err, rep)
	}

	// A second bundle replaces the first whole.
	if err := os.WriteFile(filepath.Join(f.in.Out, "stale"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	f2 := newFixture(t, true)
	f2.in.Out = f.in.Out
	if _, err := Make(context.Background(), f2.in); err != nil {
		t.Fatalf("bundling over an earlier bundle: %v", err)
	}
	if _, err := os.Stat(filepath.Join(f.in.Out, "stale")); err == nil {
		t.Error("the earlier bundle's file survived: not replaced whole")
	}
}

// TestMakeRefusesBadInput: each bad input is one error with its exit
// status naming what to change, and nothing is written beside -out.
func TestMakeRefusesBadInput(t *testing.T) {
	f := newFixture(t, false)
	text := filepath.Join(f.root, "notes.txt")
	testutil.WriteFile(t, text, "hello\n")
	other := newFixture(t, false) // linked against another toolchain folder
	userDir := filepath.Join(f.root, "dist", "mine")
	testutil.WriteFile(t, filepath.Join(userDir, "keep.txt"), "mine\n")
	link := filepath.Join(f.root, "dist", "link")
	os.Symlink(userDir, link)
	cases := []struct {
		name string
		edit func(in *Input)
		exit int
		want string
	}{
		{"not ELF", func(in *Input) { in.Executables = []string{text} }, 2, "notes.txt: not an ELF executable"},
		{"a library", func(in *Input) { in.Executables = []string{filepath.Join(f.tc, "libfoo.so.1")} }, 2, "not an executable"},
		{"another build's", func(in *Input) { in.Executables = []string{other.exe} }, 2, "is not linked against this build (out/link.json)"},
		{"folder not a bundle", func(in *Input) { in.Out = userDir }, 2, "exists and is not a bundle (it has no manifest.json)"},
		{"planted link", func(in *Input) { in.Out = link }, 2, "is a symbolic link"},
		{"plan's library missing", func(in *Input) { in.Plan.Dynamic = append(in.Plan.Dynamic, "gone") }, 1, "libgone.so, which the link plan out/link.json names, is missing"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			in := f.in
			p := *f.in.Plan
			in.Plan = &p
			c.edit(&in)
			before := testutil.Snapshot(t, filepath.Join(f.root, "dist"))
			_, err := Make(context.Background(), in)
			if err == nil || fail.ExitCode(err) != c.exit || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("want exit %d with %q, got %d: %v", c.exit, c.want, fail.ExitCode(err), err)
			}
			if d := testutil.SnapshotDiff(before, testutil.Snapshot(t, filepath.Join(f.root, "dist"))); d != "" {
				t.Errorf("a refused bundle wrote beside -out:\n%s", d)
			}
		})
	}
}
