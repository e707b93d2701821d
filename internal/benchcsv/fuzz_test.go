package benchcsv

import (
	"bytes"
	"encoding/csv"
	"errors"
	"strconv"
	"testing"
)

// FuzzParse feeds arbitrary bytes to Parse (seeds: testdata/fuzz/FuzzParse,
// made from the fixtures). Parse must never panic and must fail only with a
// positioned *InputError. What it accepts must satisfy the package's promises
// (unique, non-empty models; finite, non-negative rates) and survive being
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
		seen := map[string]bool{}
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.Write(Required)
		for _, r := range file.Rows {
			if r.Model == "" || seen[r.Model] || r.PrefillTokS < 0 || r.DecodeTokS < 0 || r.PromptTokens < 0 || r.Line < 2 {
				t.Fatalf("accepted a row that breaks the promises: %+v", r)
			}
			seen[r.Model] = true
			w.Write([]string{r.Model, strconv.Itoa(r.PromptTokens), strconv.FormatFloat(r.PrefillTokS, 'g', -1, 64),
				strconv.FormatFloat(r.DecodeTokS, 'g', -1, 64), r.Hardware, r.BuildType})
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
			if a.Model != r.Model || a.PromptTokens != r.PromptTokens || a.PrefillTokS != r.PrefillTokS ||
				a.DecodeTokS != r.DecodeTokS || a.Hardware != r.Hardware || a.BuildType != r.BuildType {
				t.Fatalf("round trip changed row %d: %+v -> %+v", i+1, r, a)
			}
		}
	})
}
