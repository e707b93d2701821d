package flow_test

import (
	"bytes"
	"context"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
	"github.com/mlxbuild/mlxbuild/internal/verify"
)

// TestVerifyBundledExample runs verify:cpu and verify:rocm over this
// repository's own mlxbuild.yaml (the bundled example, as CI and a fresh
// clone see it) into a temporary cache: every check the spec lists must
// pass, except a declared scope the project leaves out, which must say so.
// The JUnit report a CI system reads must agree.
func TestVerifyBundledExample(t *testing.T) {
	testutil.NeedTools(t, "cmake", "ninja", "hipcc", "c++", "readelf")
	repo, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("MLXBUILD_CACHE", t.TempDir())
	t.Setenv("MLX_ROCM_ARCHITECTURES", "gfx1030")
	for _, backend := range []string{"cpu", "rocm"} {
		t.Run(backend, func(t *testing.T) {
			report := filepath.Join(t.TempDir(), "verify.xml")
			t.Setenv(verify.ReportEnv, "junit:"+report)
			var stdout, stderr bytes.Buffer
			r, err := flow.Verify(context.Background(), flow.Options{Dir: repo, Stdout: &stdout, Stderr: &stderr}, backend)
			if err != nil {
				t.Fatalf("verify:%s: %v\n%s%s", backend, err, stderr.String(), stdout.String())
			}
			t.Logf("verify:%s:\n%s", backend, stdout.String())
			if r.Failed {
				t.Fatalf("verify:%s failed on the bundled example:\n%s", backend, stdout.String())
			}
			passed := 0
			for _, res := range r.Results {
				switch res.Status {
				case verify.Pass:
					passed++
				case verify.Skip:
					// Only a scope the project file does not declare may skip.
					if !strings.Contains(res.Reason, "declared") {
						t.Errorf("%s skipped for another reason: %s", res.Check, res.Reason)
					}
				}
			}
			want := map[string]int{"cpu": 4, "rocm": 9}[backend]
			if passed < want {
				t.Errorf("verify:%s: %d checks passed, want at least %d:\n%s", backend, passed, want, stdout.String())
			}
			data, err := os.ReadFile(report)
			if err != nil {
				t.Fatalf("no JUnit report at %s: %v", report, err)
			}
			var suites struct {
				Suites []struct {
					Failures int `xml:"failures,attr"`
					Tests    int `xml:"tests,attr"`
				} `xml:"testsuite"`
			}
			if err := xml.Unmarshal(data, &suites); err != nil || len(suites.Suites) != 1 {
				t.Fatalf("JUnit report does not parse as one suite: %v\n%s", err, data)
			}
			if s := suites.Suites[0]; s.Failures != 0 || s.Tests != len(r.Results) {
				t.Errorf("JUnit report: %d tests, %d failures; want %d tests, 0 failures\n%s", s.Tests, s.Failures, len(r.Results), data)
			}
		})
	}
}
