package cache

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestDecide walks the build decision through the states a build directory
// can be left in, each with the reason plan prints.
func TestDecide(t *testing.T) {
	stamp := func(kv ...string) *Stamp {
		s := &Stamp{Inputs: map[string]string{}}
		for i := 0; i < len(kv); i += 2 {
			s.Inputs[kv[i]] = kv[i+1]
		}
		return s
	}
	gfx1030 := stamp("pin", "p1", "architectures", "gfx1030", "overlay:a.hip", "h1")
	gfx90a := stamp("pin", "p1", "architectures", "gfx90a", "overlay:a.hip", "h1")
	ccache := map[string]string{"CMAKE_CXX_COMPILER_LAUNCHER": "/usr/bin/ccache"}
	done := func(s *Stamp, launcher map[string]string) *ConfigureRecord {
		return &ConfigureRecord{Done: true, Inputs: configureInputs(s, launcher)}
	}
	cases := []struct {
		name         string
		state        BuildState
		configure    bool
		configureWhy string
		why          []string
		redo         string
		purgeFrom    string
		purgeTo      string
	}{
		{name: "first build", state: BuildState{Cur: gfx1030},
			configure: true, configureWhy: "no previous successful build", why: []string{"no previous successful build"}, redo: "configure and build"},
		{name: "up to date", state: BuildState{Old: gfx1030, Configured: done(gfx1030, nil), BuildReady: true, Cur: gfx1030}},
		{name: "an overlay edit builds without configure",
			state: BuildState{Old: gfx1030, Configured: done(gfx1030, nil), BuildReady: true, Cur: stamp("pin", "p1", "architectures", "gfx1030", "overlay:a.hip", "h2")},
			why:   []string{"overlay: a.hip changed"}, redo: "build (Ninja decides which files)"},
		{name: "an overlay file added configures",
			state:     BuildState{Old: gfx1030, Configured: done(gfx1030, nil), BuildReady: true, Cur: stamp("pin", "p1", "architectures", "gfx1030", "overlay:a.hip", "h1", "overlay:b.hip", "h3")},
			configure: true, configureWhy: "overlay: b.hip added", why: []string{"overlay: b.hip added"}, redo: "configure and build"},
		{name: "new architectures",
			state:     BuildState{Old: gfx1030, Configured: done(gfx1030, nil), BuildReady: true, Cur: gfx90a},
			configure: true, configureWhy: "architectures: gfx1030 -> gfx90a", why: []string{"architectures: gfx1030 -> gfx90a"}, redo: "configure and build"},
		{name: "the launcher alone",
			state:     BuildState{Old: gfx1030, Configured: done(gfx1030, nil), BuildReady: true, Cur: gfx1030, Launcher: ccache},
			configure: true, configureWhy: launcherChanged, why: []string{launcherChanged}, redo: "configure and build"},
		{name: "the same launcher", state: BuildState{Old: gfx1030, Configured: done(gfx1030, ccache), BuildReady: true, Cur: gfx1030, Launcher: ccache}},
		// Issue 14 item 2: built for gfx1030, a gfx90a run configured and
		// then failed to compile or was killed; back to gfx1030, the stamp
		// is unchanged but CMake's cache holds gfx90a.
		{name: "a failed or killed run configured other architectures",
			state:     BuildState{Old: gfx1030, Configured: done(gfx90a, nil), BuildReady: true, Cur: gfx1030},
			configure: true, configureWhy: "CMake was last configured by a run that failed or was stopped (architectures: gfx90a -> gfx1030)",
			why: []string{"CMake was last configured by a run that failed or was stopped (architectures: gfx90a -> gfx1030)"}, redo: "configure and build"},
		{name: "a configure that did not finish",
			state:     BuildState{Old: gfx1030, Configured: &ConfigureRecord{Inputs: configureInputs(gfx1030, nil)}, BuildReady: true, Cur: gfx1030},
			configure: true, configureWhy: "the last configure did not finish", why: []string{"the last configure did not finish"}, redo: "configure and build"},
		{name: "a build directory without a record",
			state:     BuildState{Old: gfx1030, BuildReady: true, Cur: gfx1030},
			configure: true, configureWhy: "the build directory has no configure record (an older mlxbuild made it)", why: []string{"the build directory has no configure record (an older mlxbuild made it)"}, redo: "configure and build"},
		{name: "a build directory removed by hand",
			state:     BuildState{Old: gfx1030, Configured: done(gfx1030, nil), Cur: gfx1030},
			configure: true, configureWhy: "no build directory yet", why: []string{"no build directory yet"}, redo: "configure and build"},
		{name: "a failed first build that configured what this run wants",
			state: BuildState{Configured: done(gfx1030, nil), BuildReady: true, Cur: gfx1030},
			why:   []string{"no previous successful build"}, redo: "build (Ninja decides which files)"},
		{name: "a new pin purges",
			state:     BuildState{Old: gfx1030, Configured: done(gfx1030, nil), BuildReady: true, Cur: stamp("pin", "p2", "architectures", "gfx1030", "overlay:a.hip", "h1")},
			configure: true, configureWhy: "pin: p1 -> p2", why: []string{"pin: p1 -> p2"}, purgeFrom: "p1", purgeTo: "p2",
			redo: "purge the old pin's tree and build directory, then configure and build"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Decide(c.state)
			if d.Configure != c.configure || d.ConfigureWhy != c.configureWhy || !slices.Equal(d.Why, c.why) || d.Redo() != c.redo || d.purgeFrom != c.purgeFrom || d.purgeTo != c.purgeTo {
				t.Errorf("Decide = configure %v %q, why %q, redo %q, purge %q -> %q\nwant configure %v %q, why %q, redo %q, purge %q -> %q",
					d.Configure, d.ConfigureWhy, d.Why, d.Redo(), d.purgeFrom, d.purgeTo,
					c.configure, c.configureWhy, c.why, c.redo, c.purgeFrom, c.purgeTo)
			}
			if d.Record.Done || len(d.Record.Inputs) == 0 {
				t.Errorf("the record to write before configure is %+v, want this run's inputs, not done", d.Record)
			}
		})
	}
}

// TestConfigureRecord checks the record's round trip, that it holds which
// overlay files exist but not their content, and that a torn record reads
// as none (which reconfigures).
func TestConfigureRecord(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "build")
	if r, err := ReadConfigureRecord(dir); r != nil || err != nil {
		t.Fatalf("no record yet: %+v, %v", r, err)
	}
	in := configureInputs(&Stamp{Inputs: map[string]string{"architectures": "gfx1030", "overlay:a.hip": "h1"}}, map[string]string{"CMAKE_C_COMPILER_LAUNCHER": "/usr/bin/ccache"})
	want := map[string]string{"architectures": "gfx1030", "overlay:a.hip": overlayPresent, "launcher:CMAKE_C_COMPILER_LAUNCHER": "/usr/bin/ccache"}
	if len(in) != len(want) {
		t.Fatalf("ConfigureInputs = %v, want %v", in, want)
	}
	for k, v := range want {
		if in[k] != v {
			t.Errorf("ConfigureInputs[%q] = %q, want %q", k, in[k], v)
		}
	}
	if err := WriteConfigureRecord(dir, ConfigureRecord{Done: true, Inputs: in}); err != nil {
		t.Fatal(err)
	}
	r, err := ReadConfigureRecord(dir)
	if err != nil || r == nil || !r.Done || r.Inputs["architectures"] != "gfx1030" {
		t.Fatalf("read back %+v, %v", r, err)
	}
	if err := os.WriteFile(filepath.Join(dir, ConfigureRecordFile), []byte(`{"done": tr`), 0o644); err != nil {
		t.Fatal(err)
	}
	if r, err := ReadConfigureRecord(dir); r != nil || err != nil {
		t.Errorf("a torn record reads as %+v, %v; want none", r, err)
	}
}
