package forksync

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// exampleHistory is testutil.ExampleHistory under this file's old names.
type exampleHistory struct {
	project, overlay    string
	pin, rename, signat string
	head                string
	env                 func(string) string
}

func newExampleHistory(t *testing.T) *exampleHistory {
	t.Helper()
	h := testutil.NewExampleHistory(t, "../../examples")
	return &exampleHistory{project: h.Project, overlay: h.Overlay, pin: h.Pin, rename: h.Rename, signat: h.Signature, head: h.Head, env: h.Env}
}

func TestDriftListsTheCoreFilesWhoseUpstreamMoved(t *testing.T) {
	h := newExampleHistory(t)
	cfg, err := configs.LoadConfig(filepath.Dir(h.project), h.env)
	if err != nil {
		t.Fatal(err)
	}
	o, notes, err := DriftOptionsFor(cfg, "cpu", "") // the candidate is upstream's HEAD
	if err != nil || len(notes) != 0 {
		t.Fatalf("DriftOptionsFor: %v %v", notes, err)
	}
	rep, err := Drift(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.pin != h.pin || rep.candidate != h.head {
		t.Errorf("range %s..%s, want %s..%s", rep.pin, rep.candidate, h.pin, h.head)
	}
	if got := strings.Join(rep.moved(), ","); got != "mlx/backend/gpu/available.cpp,mlx/version.cpp" {
		t.Errorf("moved core files: %s", got)
	}
	files := map[string]fileDrift{}
	for _, f := range rep.files {
		files[f.path] = f
	}
	if len(files) != 2 {
		t.Errorf("core files: %+v (the backend directory is no core file)", rep.files)
	}
	v := files["mlx/version.cpp"]
	if len(v.missing) != 0 || v.contained != 1 {
		t.Errorf("version.cpp already has upstream's change: %+v", v)
	}
	a := files["mlx/backend/gpu/available.cpp"]
	var missing []string
	for _, hk := range a.missing {
		missing = append(missing, hk.lines...)
	}
	text := strings.Join(missing, "\n")
	for _, w := range []string{"+int num_devices() {", "-int device_count() {", "+int add(const float*, const float*, float*, std::size_t, int) {", "+int is_available() {", "+int multiply(const float*, const float*, float*, std::size_t) {"} {
		if !strings.Contains(text, w) {
			t.Errorf("drift does not show the upstream line %q; missing hunks:\n%s", w, text)
		}
	}
	var out strings.Builder
	rep.Render(&out)
	t.Log(out.String())
	for _, w := range []string{"mlx/backend/gpu/available.cpp", "+int num_devices() {", "mlx/version.cpp: upstream changed it; the overlay has all 1 hunk"} {
		if !strings.Contains(out.String(), w) {
			t.Errorf("the rendered report lacks %q:\n%s", w, out.String())
		}
	}

	// Up to the rename only, the signature change is not reported.
	o.candidate = h.rename
	rep, err = Drift(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	out.Reset()
	rep.Render(&out)
	if strings.Contains(out.String(), "int stream") || !strings.Contains(out.String(), "num_devices") {
		t.Errorf("drift to the rename:\n%s", out.String())
	}
}
