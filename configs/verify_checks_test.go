package configs

import (
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestVerifyChecksCoverTheSections holds the table and the project file's
// verify section together: each check once, each section it names a key
// of the section, and every key that takes scope: and root: the folder of
// one check, so a section added without its entry is not left unvalidated.
func TestVerifyChecksCoverTheSections(t *testing.T) {
	seen := map[string]bool{}
	folders := map[string]bool{}
	var v Verify
	for _, c := range VerifyChecks {
		if seen[c.Name] {
			t.Errorf("check %s is in VerifyChecks twice", c.Name)
		}
		seen[c.Name] = true
		for _, key := range []string{c.Section, c.Folder} {
			if key != "" && !v.section(key).IsValid() {
				t.Errorf("check %s names %q, which is no key of a verify section", c.Name, key)
			}
		}
		if (c.Folder == "") != (c.Scope == "") {
			t.Errorf("check %s: a folder key (%q) and a default scope (%q) go together", c.Name, c.Folder, c.Scope)
		}
		if c.Undeclared != "" && c.Section == "" {
			t.Errorf("check %s says what to declare but names no section", c.Name)
		}
		folders[c.Folder] = true
	}
	folderType := reflect.TypeOf(verifyFolder{})
	rt := reflect.TypeOf(v)
	for i := 0; i < rt.NumField(); i++ {
		f := rt.Field(i)
		ft := f.Type
		for ft.Kind() == reflect.Pointer || ft.Kind() == reflect.Slice {
			ft = ft.Elem()
		}
		_, embeds := ft.FieldByName("verifyFolder")
		if key := strings.Split(f.Tag.Get("yaml"), ",")[0]; (ft == folderType || embeds) && !folders[key] {
			t.Errorf("verify.%s takes scope: and root:, but no check of VerifyChecks reads its folder", key)
		}
	}
}

// TestVerifyFoldersAreValidated: every check's folder key decodes scope:
// and root: (through the shared, inlined verifyFolder) and refuses a bad
// scope and a root that leaves it, at their positions.
func TestVerifyFoldersAreValidated(t *testing.T) {
	file := filepath.Join(t.TempDir(), "mlxbuild.yaml")
	for _, c := range VerifyChecks {
		if c.Folder == "" {
			continue
		}
		t.Run(c.Folder, func(t *testing.T) {
			good := "source:\n  dir: .\nbackends:\n  cpu:\n    verify:\n      " + c.Folder + ":\n        scope: repo\n        root: sub\n"
			p, err := ParseProject(file, []byte(good))
			if err != nil {
				t.Fatal(err)
			}
			v := p.Backends["cpu"].Verify
			if got := v.Folder(c.Folder); got.Scope != "repo" || got.Root != "sub" || got.Pos.Line != 7 || !v.Declares(c.Folder) {
				t.Errorf("%s decodes as %+v (declared %v), want scope repo, root sub at line 7", c.Folder, got, v.Declares(c.Folder))
			}
			bad := strings.Replace(strings.Replace(good, "scope: repo", "scope: home", 1), "root: sub", "root: ../up", 1)
			_, err = ParseProject(file, []byte(bad))
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("a bad scope and root are accepted: %v", err)
			}
			for _, want := range []string{file + ":7:16: " + c.Folder + ".scope is \"home\"", file + ":8:15: " + c.Folder + ".root \"../up\" must be a folder inside"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q:\n%v", want, err)
				}
			}
		})
	}
}
