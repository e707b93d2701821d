package backends

import (
	"bytes"
	"testing"
)

// FuzzParseMemo feeds arbitrary entry files to the memo's reader: it must
// not fail, and an entry it accepts must be written back byte for byte by
// formatMemo (so nothing of a torn or foreign file is half read).
func FuzzParseMemo(f *testing.F) {
	for _, s := range []string{
		memoHeader + "\nenv \"ROCM_PATH\" \"\"\nenv \"child:PATH\" \"/usr/bin:/bin\"\nfile \"/opt/rocm\" absent\nfile \"/usr/bin/hipconfig\" 420 10 1 2 3 4 -> \"hipconfig.pl\"\nresult {\"root\":\"/usr\",\"version\":\"5.2.21153\"}\n",
		memoHeader + "\nresult {}\n",
		memoHeader + "\nresult {}\nfile \"/x\" absent\n",
		memoHeader + "\nenv \"K\"\nresult {}\n",
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

// TestMemoIgnoresOtherForms checks that an entry of the JSON form (memo 2)
// or a torn entry is not used: discovery runs again and rewrites it.
func TestMemoIgnoresOtherForms(t *testing.T) {
	for _, bad := range []string{
		`{"version":2,"env":{},"files":[],"result":{"path":"/usr/bin/cmake","version":"3.25.1"}}`,
		memoHeader + "\nresult {\"path\":\"/usr/bin/cmake\"",
		memoHeader + "\nfile \"/nonexistent\" absent\nresult {\"path\":\"/x\",\"version\":\"1.0.0\"}\nresult {}\n",
	} {
		if _, ok := parseMemo([]byte(bad)); ok {
			t.Errorf("entry %q was read", bad)
		}
	}
	e := memoEntry{env: [][2]string{{"PATH", "/a\nb"}}, files: []string{identify("/nonexistent").Key()}, result: []byte(`{"path":"/x","version":"1.0.0"}`)}
	back, ok := parseMemo(formatMemo(e))
	if !ok || len(back.env) != 1 || back.env[0][1] != "/a\nb" || len(back.files) != 1 || string(back.result) != string(e.result) {
		t.Errorf("round trip: %+v, %v", back, ok)
	}
}
