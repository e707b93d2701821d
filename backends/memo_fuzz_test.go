package backends

import (
	"bytes"
	"fmt"
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

// TestMemoFieldsKeepEveryField round-trips a ROCm and a tool answer with
// every exported field set through the memo's text, and checks that each
// type names as many fields as it exports: a field added later and not
// kept would come back empty from a cached discovery.
func TestMemoFieldsKeepEveryField(t *testing.T) {
	r := &ROCm{Root: "/r", From: "ROCM_PATH", LibDir: "/r/lib", BinDir: "/r/bin", IncludeDir: "/r/include", Version: version.Must(version.NewVersion("6.1.2")),
		VersionFrom: ".info/version", HIPCompiler: "/r/llvm/bin/clang++", DeviceLibDir: "/r/amdgcn/bitcode", Multiarch: true}
	f := &toolFound{Path: "/usr/bin/cmake", Version: version.Must(version.NewVersion("3.25.1"))}
	for _, c := range []struct {
		in, out memoResult
	}{{r, &ROCm{}}, {f, &toolFound{}}} {
		exported := 0
		typ := reflect.TypeOf(c.in).Elem()
		for i := 0; i < typ.NumField(); i++ {
			if typ.Field(i).IsExported() {
				exported++
			}
		}
		if n := len(c.in.fields()); n != exported {
			t.Errorf("%s: %d memo fields for %d exported fields", typ.Name(), n, exported)
		}
		e, ok := parseMemo(formatMemo(memoEntry{result: memoFields(c.in)}))
		if !ok {
			t.Fatalf("%s: its entry does not parse", typ.Name())
		}
		if !setMemoFields(c.out, e.result) {
			t.Fatalf("%s: its fields %v are refused", typ.Name(), e.result)
		}
		if got, want := fmt.Sprintf("%+v", c.out), fmt.Sprintf("%+v", c.in); got != want {
			t.Errorf("%s round trip:\n got %s\nwant %s", typ.Name(), got, want)
		}
	}
	if setMemoFields(&ROCm{}, [][2]string{{"unknown", "x"}}) || setMemoFields(&toolFound{}, [][2]string{{"version", "not a version"}}) || setMemoFields(&ROCm{}, [][2]string{{"multiarch", "maybe"}}) {
		t.Error("a field the result does not take was taken")
	}
}
