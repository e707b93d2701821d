package benchcsv

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"strconv"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse (seeds: testdata/fuzz/FuzzParse,
// made from the fixtures, failed rows included). Parse must never panic and
// must fail only with a positioned *InputError. What it accepts must satisfy
// the package's promises (a measured row has a model and finite,
// non-negative rates; a row not measured says why) and survive being
// written back as CSV and parsed again.
func FuzzParse(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("fuzz.csv", data)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.File != "fuzz.csv" || ie.Line < 0 || ie.Col < 0 || ie.Row < 0 {
				t.Fatalf("error is not a positioned *InputError: %T %v", err, err)
			}
			return
		}
		models := map[string]bool{}
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		header := append(append([]string(nil), Required...), "mlxcel_commit", "date")
		w.Write(header)
		for _, r := range file.Rows {
			if r.Line < 2 || r.Measured() && (r.Model == "" || r.PrefillTokS < 0 || r.DecodeTokS < 0 || r.PromptTokens < 0) {
				t.Fatalf("accepted a row that breaks the promises: %+v", r)
			}
			key := r.Model
			if key == "" {
				key = fmt.Sprintf("(row at line %d)", r.Line)
			}
			models[key] = true
			if !r.Measured() {
				// Written back as a status row, which stays not measured.
				w.Write([]string{r.Model, "", "", "", r.Commit, r.Date, "SKIP:x"})
				continue
			}
			w.Write([]string{r.Model, strconv.Itoa(r.PromptTokens), strconv.FormatFloat(r.PrefillTokS, 'g', -1, 64),
				strconv.FormatFloat(r.DecodeTokS, 'g', -1, 64), r.Commit, r.Date})
		}
		w.Flush()
		again, err := Parse("again.csv", buf.Bytes())
		if err != nil {
			t.Fatalf("re-parsing what was accepted: %v\n%q", err, buf.String())
		}
		if len(again.Rows) != len(file.Rows) {
			t.Fatalf("%d rows, then %d", len(file.Rows), len(again.Rows))
		}
		for i, a := range again.Rows {
			r := file.Rows[i]
			if a.Model != r.Model || a.Measured() != r.Measured() || r.Measured() && (a.PromptTokens != r.PromptTokens || a.PrefillTokS != r.PrefillTokS ||
				a.DecodeTokS != r.DecodeTokS) || a.Commit != r.Commit || a.Date != r.Date {
				t.Fatalf("round trip changed row %d: %+v -> %+v", i+1, r, a)
			}
		}
		// Compared with itself, every measured generative row pairs at 1.0x and
		// every other model is dropped with a reason, and every other row of
		// a model is listed as replaced (twice: it is on both sides): nothing
		// vanishes.
		rep, err := Compare(file, file, DefaultOptions())
		if err != nil {
			t.Fatal(err)
		}
		if len(rep.Pairs)+len(rep.Dropped) != len(models) || len(rep.Replaced) != 2*(len(file.Rows)-len(models)) {
			t.Fatalf("%d pairs + %d drops for %d models; %d replaced for %d rows", len(rep.Pairs), len(rep.Dropped), len(models), len(rep.Replaced), len(file.Rows))
		}
		for _, p := range rep.Pairs {
			if *p.Decode.Ratio != 1 || p.Moved {
				t.Fatalf("self-comparison of %s: %v", p.Model, *p.Decode.Ratio)
			}
		}
	})
}

// FuzzParseCatalog: a catalog either parses, mapping every name to a current
// name that maps to itself, or fails with a positioned *InputError.
func FuzzParseCatalog(f *testing.F) {
	f.Add([]byte("local_name\taliases\nA\tx;y\nB\t\n"))
	f.Add([]byte("local_name\taliases\nA\tx;y\nB\ty\n"))
	f.Add([]byte("aliases\tlocal_name\n;;\tA\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := ParseCatalog("c.tsv", data)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.File != "c.tsv" {
				t.Fatalf("error is not an *InputError: %T %v", err, err)
			}
			return
		}
		for name, cur := range a {
			if a[cur] != cur || name == "" {
				t.Fatalf("%q -> %q, which maps to %q", name, cur, a[cur])
			}
		}
	})
}
