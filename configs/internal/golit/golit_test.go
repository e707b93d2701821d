package golit

import (
	"go/parser"
	"math"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
)

type inner struct {
	N      int
	hidden string
}

type outer struct {
	S      string
	B      bool
	F      float64
	U      uint8
	P      *inner
	Nil    *inner
	List   []inner
	Ptrs   []*inner
	Empty  []string
	None   []string
	M      map[string]int
	Arr    [2]int
	D      time.Duration
	Ds     []time.Duration
	nested inner
}

const local = "github.com/mlxbuild/mlxbuild/configs/internal/golit"

func TestExprPrintsEveryKindAsALiteral(t *testing.T) {
	v := outer{
		S: "a \"quoted\"\nline", B: true, F: 0.1, U: 7,
		P:      &inner{N: -3, hidden: "h"},
		List:   []inner{{N: 1}, {}},
		Ptrs:   []*inner{{N: 2}, nil},
		Empty:  []string{},
		M:      map[string]int{"b": 2, "a": 1, "c": 3},
		Arr:    [2]int{0, 5},
		D:      time.Second,
		Ds:     []time.Duration{time.Millisecond},
		nested: inner{hidden: "x"},
	}
	p := &Printer{Local: local}
	got, err := p.Expr(v)
	if err != nil {
		t.Fatal(err)
	}
	// Zero fields (None, Nil, B of the zero inner) are left out; the empty
	// slice is kept, since DeepEqual tells it from nil; keys are sorted;
	// elements drop their type and &.
	want := `outer{
S: "a \"quoted\"\nline",
B: true,
F: 0.1,
U: 7,
P: &inner{N: -3, hidden: "h"},
List: []inner{{N: 1}, {}},
Ptrs: []*inner{{N: 2}, nil},
Empty: []string{},
M: map[string]int{"a": 1, "b": 2, "c": 3},
Arr: [2]int{0, 5},
D: 1000000000,
Ds: []time.Duration{1000000},
nested: inner{hidden: "x"},
}`
	if got != want {
		t.Fatalf("Expr printed\n%s\nwant\n%s", got, want)
	}
	if _, err := parser.ParseExpr(got); err != nil {
		t.Fatalf("the output is not a Go expression: %v", err)
	}
	if imp := p.Imports(); !reflect.DeepEqual(imp, []string{"time"}) {
		t.Fatalf("Imports = %q, want [time]", imp)
	}
}

func TestExprKeepsShortLiteralsOnOneLine(t *testing.T) {
	p := &Printer{Local: local}
	got, err := p.Expr([]string{"a", "b"})
	if err != nil || got != `[]string{"a", "b"}` {
		t.Fatalf("Expr = %q, %v", got, err)
	}
	long := []string{strings.Repeat("x", 60), strings.Repeat("y", 60)}
	got, err = p.Expr(long)
	if err != nil || strings.Count(got, "\n") != 3 {
		t.Fatalf("a literal over %d characters must get a line per element:\n%s (%v)", lineWidth, got, err)
	}
}

func TestFloatsRoundTrip(t *testing.T) {
	p := &Printer{Local: local}
	for f, want := range map[float64]string{5: "5", 0.1: "0.1", 1e-300: "1e-300", math.MaxFloat64: "1.7976931348623157e+308", -2.5: "-2.5"} {
		got, err := p.Expr(f)
		if err != nil || got != want {
			t.Errorf("Expr(%v) = %s, %v; want %s", f, got, err, want)
		}
		if back, err := strconv.ParseFloat(got, 64); err != nil || back != f {
			t.Errorf("%s parses back as %v, not %v", got, back, f)
		}
	}
}

func TestExprRefusesWhatHasNoLiteral(t *testing.T) {
	n := 1
	cases := map[string]any{
		"untyped nil":         nil,
		"which has no Go lit": math.Inf(1),
		"points to a int":     &n,
		"is a func":           struct{ F func() }{func() {}},
		"is unexported in":    struct{ T time.Time }{time.Unix(1, 0)},
	}
	for want, v := range cases {
		p := &Printer{Local: local}
		if _, err := p.Expr(v); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Expr(%T): %v, want an error saying %q", v, err, want)
		}
	}
}
