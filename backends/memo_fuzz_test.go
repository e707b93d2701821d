package backends

import (
	"bytes"
	"reflect"
	"testing"

	"github.com/hashicorp/go-version"
)

// FuzzParseMemo feeds arbitrary entry files to the memo's reader: it must
// not fail, and an entry it accepts must be written back byte for byte by
// formatMemo (so nothing of a torn or foreign file is half read).
func FuzzParseMemo(f *testing.F) {
	for _, s := range []string{
		memoHeader + "\nenv \"ROCM_PATH\" \"\"\nenv \"child:PATH\" \"/usr/bin:/bin\"\nfile \"/opt/rocm\" absent\nfile \"/usr/bin/hipconfig\" 420 10 1 2 3 4 -> \"hipconfig.pl\"\nset \"root\" \"/usr\"\nset \"version\" \"5.2.21153\"\n",
		memoHeader + "\nset \"path\" \"\"\n",
		memoHeader + "\nset \"path\" \"/x\"\nfile \"/x\" absent\n",
		memoHeader + "\nenv \"K\"\nset \"path\" \"/x\"\n",
		"{\"version\":2,\"env\":{},\"files\":[],\"result\":{}}",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		e, ok := parseMemo(data)
		if !ok {
			return
		}
		if back := formatMemo(e); !bytes.Equal(back, data) {
			t.Errorf("accepted %q, but it writes back as %q", data, back)
		}
	})
}

// TestMemoIgnoresOtherForms checks that an entry of the JSON form (memo 2),
// a torn entry or one with lines out of order is not used.
func TestMemoIgnoresOtherForms(t *testing.T) {
	for _, bad := range []string{
		`{"version":2,"env":{},"files":[],"result":{"path":"/usr/bin/cmake","version":"3.25.1"}}`,
		memoHeader + "\nset \"path\" \"/usr/bin/cmake\"",
		memoHeader + "\nset \"path\" \"/x\"\nfile \"/nonexistent\" absent\n",
		memoHeader + "\nfile \"/nonexistent\" absent\n",
		memoHeader + "\nresult {}\n",
	} {
		if _, ok := parseMemo([]byte(bad)); ok {
			t.Errorf("entry %q was read", bad)
		}
	}
	e := memoEntry{env: [][2]string{{"PATH", "/a\nb"}}, files: []string{identify("/nonexistent").Key()}, result: [][2]string{{"path", "/x"}}}
	back, ok := parseMemo(formatMemo(e))
	if !ok || !reflect.DeepEqual(back, e) {
		t.Errorf("round trip: %+v, %v", back, ok)
	}
}

// runState are the fields of ROCm that belong to one run, not to the
// answer a memo keeps.
var runState = map[string]bool{"seen": true, "archMu": true, "archCache": true}

// TestMemoFieldsKeepEveryField round-trips a ROCm and a tool answer with
// every field of the answer set through the memo's text, and checks that
// each type names as many memo fields as it has answer fields: a field
// added later and not kept would come back empty from a cached discovery.
func TestMemoFieldsKeepEveryField(t *testing.T) {
	r := &rocmToolchain{root: "/r", from: "ROCM_PATH", LibDir: "/r/lib", binDir: "/r/bin", includeDir: "/r/include", version: version.Must(version.NewVersion("6.1.2")),
		versionFrom: ".info/version", hipCompiler: "/r/llvm/bin/clang++", deviceLibDir: "/r/amdgcn/bitcode", multiarchLayout: true}
	f := &toolFound{path: "/usr/bin/cmake", version: version.Must(version.NewVersion("3.25.1"))}
	for _, c := range []struct {
		in, out memoResult
	}{{r, &rocmToolchain{}}, {f, &toolFound{}}} {
		kept := 0
		typ := reflect.TypeOf(c.in).Elem()
		for i := 0; i < typ.NumField(); i++ {
			if !runState[typ.Field(i).Name] {
				kept++
			}
		}
		if n := len(c.in.fields()); n != kept {
			t.Errorf("%s: %d memo fields for %d fields of the answer", typ.Name(), n, kept)
		}
		e, ok := parseMemo(formatMemo(memoEntry{result: memoFields(c.in)}))
		if !ok {
			t.Fatalf("%s: its entry does not parse", typ.Name())
		}
		if !setMemoFields(c.out, e.result) {
			t.Fatalf("%s: its fields %v are refused", typ.Name(), e.result)
		}
		if !reflect.DeepEqual(c.out, c.in) {
			t.Errorf("%s round trip:\n got %v\nwant %v", typ.Name(), memoFields(c.out), memoFields(c.in))
		}
	}
	if setMemoFields(&rocmToolchain{}, [][2]string{{"unknown", "x"}}) || setMemoFields(&toolFound{}, [][2]string{{"version", "not a version"}}) || setMemoFields(&rocmToolchain{}, [][2]string{{"multiarch", "maybe"}}) {
		t.Error("a field the result does not take was taken")
	}
}
