package arch

import (
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// TestParseArchiveRealAr reads an archive made by the real ar: a short
// name, a name longer than 15 bytes (in the "//" table), an odd-sized
// member (padding) and the symbol table, which is skipped.
func TestParseArchiveRealAr(t *testing.T) {
	testutil.NeedTools(t, "ar", "cc")
	dir := t.TempDir()
	files := map[string]string{
		"a.o":                                  "",
		"a_rather_long_object_file_name.hip.o": "",
		"odd.txt":                              "odd",
	}
	testutil.WriteFile(t, filepath.Join(dir, "a.c"), "int a(void) { return 1; }\n")
	if out, err := exec.Command("cc", "-c", filepath.Join(dir, "a.c"), "-o", filepath.Join(dir, "a.o")).CombinedOutput(); err != nil {
		t.Fatalf("cc: %v\n%s", err, out)
	}
	obj, _ := os.ReadFile(filepath.Join(dir, "a.o"))
	files["a.o"] = string(obj)
	files["a_rather_long_object_file_name.hip.o"] = string(obj) + "__CLANG_OFFLOAD_BUNDLE__"
	names := []string{"a.o", "a_rather_long_object_file_name.hip.o", "odd.txt"}
	for _, n := range names {
		testutil.WriteFile(t, filepath.Join(dir, n), files[n])
	}
	lib := filepath.Join(dir, "lib.a")
	cmd := exec.Command("ar", append([]string{"rcs", lib}, names...)...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("ar: %v\n%s", err, out)
	}
	data, err := os.ReadFile(lib)
	if err != nil {
		t.Fatal(err)
	}
	members, err := parseArchive(data)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range members {
		got = append(got, m.name)
		if string(m.data) != files[m.name] {
			t.Errorf("member %s: %d bytes, want %d", m.name, len(m.data), len(files[m.name]))
		}
	}
	if !reflect.DeepEqual(got, names) {
		t.Errorf("members %q, want %q", got, names)
	}
	if _, err := parseArchive(data[:len(data)-2]); err == nil {
		t.Error("a cut-off archive parsed")
	}
	if _, err := parseArchive([]byte("!<thin>\n")); err == nil {
		t.Error("a thin archive parsed")
	}
	if _, err := parseArchive(obj); err == nil {
		t.Error("an object file parsed as an archive")
	}
}

func TestComparePlanned(t *testing.T) {
	cases := []struct {
		backend string
		b       Binary
		planned []string
		missing []string
		extra   []string
		ok      bool
	}{
		{ROCm, Binary{ROCm: []string{"gfx90a"}}, []string{"gfx1030"}, []string{"gfx1030"}, []string{"gfx90a"}, true},
		{ROCm, Binary{ROCm: []string{"gfx90a:xnack-"}}, []string{"gfx90a"}, nil, nil, true},
		{ROCm, Binary{ROCm: []string{"gfx1030", "gfx90a"}}, []string{"gfx1030"}, nil, []string{"gfx90a"}, true},
		{ROCm, Binary{}, []string{"gfx1030"}, []string{"gfx1030"}, nil, true},
		{CUDA, Binary{SASS: []string{"80", "90a"}, PTX: []string{"90a"}}, []string{"80-real", "90a"}, nil, nil, true},
		{CUDA, Binary{SASS: []string{"80", "90a"}, PTX: []string{"90a"}}, []string{"80", "90a"}, []string{"compute_80 (PTX)"}, nil, true},
		{CUDA, Binary{SASS: []string{"86"}}, []string{"86-real", "90-virtual"}, []string{"compute_90 (PTX)"}, nil, true},
		{CUDA, Binary{SASS: []string{"86"}}, []string{"native"}, nil, nil, false},
	}
	for _, c := range cases {
		m, ok := ComparePlanned(c.backend, c.b, c.planned)
		if ok != c.ok || !reflect.DeepEqual(m.missing, c.missing) || !reflect.DeepEqual(m.extra, c.extra) {
			t.Errorf("%s %+v vs %v: %+v ok=%v; want missing %v extra %v ok=%v", c.backend, c.b, c.planned, m, ok, c.missing, c.extra, c.ok)
		}
		if ok && m.Differs() != (len(c.missing)+len(c.extra) > 0) {
			t.Errorf("%+v: Differs() = %v", m, m.Differs())
		}
	}
}
