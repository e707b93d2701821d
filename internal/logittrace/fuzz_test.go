package logittrace

import (
	"errors"
	"math"
	"testing"
)

// FuzzParse: a trace either parses into rows that keep the format's promises
// (k >= 1, as many logits as ids, best first, nll >= 0, every number finite)
// and compares with itself as all-agree, or fails with a positioned
// *InputError.
func FuzzParse(f *testing.F) {
	f.Add([]byte("# model\tm\n# columns\tchunk\tpos\ttarget\tnll\ttop_ids\ttop_logits\n0\t0\t5\t0.1\t5,6\t2,1\n1\t0\t7\t0.2\t7\t3\n"))
	f.Add([]byte("0\t0\t5\t0.1\t5,6\t2,3\n"))
	f.Add([]byte("# columns\tchunk\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Parse("f.tsv", data)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) || ie.File != "f.tsv" || ie.Line < 0 || ie.Col < 0 {
				t.Fatalf("not a positioned *InputError: %T %v", err, err)
			}
			return
		}
		for _, r := range tr.Rows {
			if len(r.TopIDs) == 0 || len(r.TopIDs) != len(r.TopLogits) || r.NLL < 0 || math.IsInf(r.NLL, 0) || r.Line < 1 {
				t.Fatalf("accepted a broken row: %+v", r)
			}
			for k := 1; k < len(r.TopLogits); k++ {
				if r.TopLogits[k] > r.TopLogits[k-1] {
					t.Fatalf("accepted logits out of order: %+v", r)
				}
			}
		}
		res, err := Compare(tr, tr, DefaultDecided)
		if err != nil || res.Verdict != AllAgree || res.Disagree != 0 || res.DeltaMax != 0 {
			t.Fatalf("self-comparison: %v %+v", err, res)
		}
		var total int
		for _, b := range res.Buckets {
			total += b.Positions
		}
		if total != res.Positions {
			t.Fatalf("buckets hold %d of %d positions", total, res.Positions)
		}
	})
}
