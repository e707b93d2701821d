package bundle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
)

// TestCheckHeaderHome: bundle:check looks for the runtime's own header
// folder as MLX's CUDA JIT does (beside the bundle, then CUDA_HOME, then
// CUDA_PATH, else the default) and fails, naming the variable to set to
// the bundle, when the runtime would abort its first run-time compile.
func TestCheckHeaderHome(t *testing.T) {
	root := t.TempDir()
	bundle := filepath.Join(root, "shipped")
	sysHome := filepath.Join(root, "cuda")
	mkdirs(t, filepath.Join(bundle, "include"), filepath.Join(sysHome, "include"))
	h := &HeaderHome{Beside: "nvidia/cuda_runtime/include", Env: []string{"CUDA_HOME", "CUDA_PATH"}, Default: filepath.Join(root, "none"), Sub: "include"}
	for _, c := range []struct {
		name string
		env  map[string]string
		ok   bool
		want string
	}{
		{"nothing set, no default folder", nil, false, "none/include is not a folder and CUDA_HOME, CUDA_PATH unset"},
		{"CUDA_HOME the bundle", map[string]string{"CUDA_HOME": bundle}, true, filepath.Join(bundle, "include") + " (CUDA_HOME)"},
		{"CUDA_PATH when CUDA_HOME is unset", map[string]string{"CUDA_PATH": sysHome}, true, "(CUDA_PATH)"},
		{"CUDA_HOME wins over CUDA_PATH", map[string]string{"CUDA_HOME": filepath.Join(root, "gone"), "CUDA_PATH": sysHome}, false, "(CUDA_HOME)"},
	} {
		line, ok := checkHeaderHome(bundle, h, func(k string) string { return c.env[k] })
		if ok != c.ok || !strings.Contains(line, c.want) {
			t.Errorf("%s: %v %q, want %v and %q", c.name, ok, line, c.ok, c.want)
		}
		if !ok && !strings.Contains(line, "set CUDA_HOME="+bundle+" ") {
			t.Errorf("%s: the failure does not name the variable to set to the bundle: %q", c.name, line)
		}
	}
	h.Default = sysHome
	if line, ok := checkHeaderHome(bundle, h, func(string) string { return "" }); !ok || !strings.Contains(line, "(the default)") {
		t.Errorf("the default home: %v %q", ok, line)
	}
	h.Default = filepath.Join(root, "none")
	beside := filepath.Join(root, "nvidia", "cuda_runtime", "include")
	mkdirs(t, beside)
	if line, ok := checkHeaderHome(bundle, h, func(string) string { return "" }); !ok || !strings.Contains(line, beside) {
		t.Errorf("the folder beside the bundle (a pip layout): %v %q", ok, line)
	}
}

// TestMakeKeepsHeaderHome: the policy's header home reaches the manifest,
// and Check on a machine without it fails with the header line.
func TestMakeKeepsHeaderHome(t *testing.T) {
	f := newFixture(t, true)
	f.in.Policy.HeaderHome = &configs.HeaderHome{Env: []string{"CUDA_HOME"}, Default: filepath.Join(f.root, "none"), Sub: "include"}
	m, err := Make(context.Background(), f.in)
	if err != nil {
		t.Fatal(err)
	}
	if m.HeaderHome == nil || m.HeaderHome.Sub != "include" {
		t.Fatalf("manifest header home: %+v", m.HeaderHome)
	}
	sys := append([]string{f.driver}, SystemDirs("/etc/ld.so.conf")...)
	rep, err := Check(context.Background(), f.in.Out, CheckOptions{SystemDirs: sys, Arch: archEnv("gfx1030"), Env: func(string) string { return "" }})
	if err != nil || !rep.Fails || !strings.Contains(strings.Join(rep.Lines, "\n"), "set CUDA_HOME="+f.in.Out) {
		t.Fatalf("check without the header home: %v %+v", err, rep)
	}
	rep, err = Check(context.Background(), f.in.Out, CheckOptions{SystemDirs: sys, Arch: archEnv("gfx1030"), Env: func(k string) string {
		if k == "CUDA_HOME" {
			return f.in.Out
		}
		return ""
	}})
	if err != nil || rep.Fails {
		t.Fatalf("check with CUDA_HOME the bundle: %v %+v", err, rep)
	}
	if _, err := os.Stat(filepath.Join(f.in.Out, "include")); err != nil {
		t.Fatal(err)
	}
}

func mkdirs(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}
