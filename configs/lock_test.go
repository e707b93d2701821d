package configs

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const (
	lockCommit = "0123456789abcdef0123456789abcdef01234567"
	lockSHA    = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
)

// TestParseLockPositions: every bad field is named with its file:line:col.
func TestParseLockPositions(t *testing.T) {
	data := "# comment\nmlxbuild-lock 1\n" +
		"good git=https://h/good tag=v1 commit=" + lockCommit + " sha256=" + lockSHA + "\n" +
		"  bad git=https://h/bad commit=abc sha256=" + lockSHA + "\n" +
		"good url=https://h/a.tar.gz sha256=" + lockSHA + "\n" +
		"other url=https://h/a.tar.gz sha256=" + lockSHA + " colour=red\n"
	_, err := parseLock("/p/mlxbuild.lock", []byte(data))
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("want a ConfigError, got %v", err)
	}
	for _, w := range []string{
		`/p/mlxbuild.lock:4:25: commit "abc" must be the full 40-hex commit`,
		"/p/mlxbuild.lock:5:1: dependency good is locked twice (first on line 3); keep one",
		`/p/mlxbuild.lock:6:` + strconv.Itoa(len("other url=https://h/a.tar.gz sha256="+lockSHA)+2) + `: unknown key "colour"`,
	} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("lacks %q:\n%v", w, err)
		}
	}
}

// TestSpecTakesLock: the lock's entry replaces the source of the spec's
// declaration of the same name (keeping its providers) and adds one the
// spec lacks, with the lock's position as origin.
func TestSpecTakesLock(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "src", "CMakeLists.txt"), "")
	writeFile(t, filepath.Join(dir, "mlxbuild.yaml"), "source:\n  dir: src\nbackends:\n  cpu:\n    spec: cpu.yaml\n    merge: extend\n")
	writeFile(t, filepath.Join(dir, "cpu.yaml"), "dependencies:\n  - name: tiny\n    git: https://h/old\n    tag: v1\n    commit: "+strings.Repeat("c", 40)+"\n    sha256: \""+strings.Repeat("b", 64)+"\"\n    providers: [system, cache]\n    system: {}\n")
	writeFile(t, filepath.Join(dir, lockFileName), NewLockFile()+"tiny git=https://h/new tag=v2 commit="+lockCommit+" sha256="+lockSHA+"\nextra url=https://h/e.tar.gz sha256="+lockSHA+"\n")
	cfg, err := LoadConfig(dir, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	s, err := cfg.Spec("cpu")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Dependency{}
	for _, d := range s.Dependencies {
		got[d.Name] = d
	}
	tiny, extra := got["tiny"], got["extra"]
	if tiny.Git != "https://h/new" || tiny.Commit != lockCommit || tiny.SHA256 != lockSHA || strings.Join(tiny.Providers, ",") != "system,cache" || tiny.Origin != filepath.Join(dir, lockFileName)+":5:1" {
		t.Errorf("tiny not locked: %+v", tiny)
	}
	if extra.URL != "https://h/e.tar.gz" || strings.Join(extra.Providers, ",") != "cache" {
		t.Errorf("extra not added: %+v", extra)
	}
	d, err := cfg.DeclaredSpec("cpu")
	if err != nil {
		t.Fatal(err)
	}
	for _, dep := range d.Dependencies {
		if dep.Name == "tiny" && dep.Git != "https://h/old" {
			t.Errorf("DeclaredSpec took the lock: %+v", dep)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// FuzzParseLock: no input panics; every problem has a position inside the
// file; what parses formats back to the same entries.
func FuzzParseLock(f *testing.F) {
	f.Add([]byte(NewLockFile() + "x git=https://h/x commit=" + lockCommit + " sha256=" + lockSHA + "\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		list, err := parseLock("f.lock", data)
		var ce *ConfigError
		if err != nil {
			if !errors.As(err, &ce) {
				t.Fatalf("not a ConfigError: %v", err)
			}
			lines := strings.Count(string(data), "\n") + 1
			for _, p := range ce.Problems {
				if p.Pos.File != "f.lock" || p.Pos.Line < 1 || p.Pos.Line > lines || p.Pos.Col < 1 {
					t.Fatalf("problem outside the file: %v", p)
				}
			}
			return
		}
		text := NewLockFile()
		for _, e := range list {
			text += e.Format() + "\n"
		}
		again, err := parseLock("f.lock", []byte(text))
		if err != nil || len(again) != len(list) {
			t.Fatalf("formatted entries do not parse back: %v\n%s", err, text)
		}
		for i := range list {
			if again[i].Format() != list[i].Format() {
				t.Fatalf("entry %d changed: %q -> %q", i, list[i].Format(), again[i].Format())
			}
		}
	})
}
