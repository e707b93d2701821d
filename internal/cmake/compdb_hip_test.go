package cmake

import (
	"reflect"
	"testing"
)

// TestHipCompiles derives entries from Ninja's view of custom commands: the
// directory a cd moved to, the source made absolute, the other commands of
// the line left out, and a HIP compile that is no fixed command reported.
func TestHipCompiles(t *testing.T) {
	e := ninjaCompdbEdge{Directory: "/b", Command: `cd /b/sub && /usr/bin/hipcc -x hip -c ../k.hip -o k.o -I/s && /usr/bin/cmake -E touch stamp`}
	got, err := hipCompiles(e)
	want := []compileEntry{{Directory: "/b/sub", File: "/b/k.hip", Arguments: []string{"/usr/bin/hipcc", "-x", "hip", "-c", "../k.hip", "-o", "k.o", "-I/s"}}}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("hipCompiles = %+v, %v; want %+v", got, err, want)
	}
	for _, cmd := range []string{
		`cd /b && /usr/bin/ar rcs lib.a a.hip.o b.hip.o`, // no -c
		`cd /b && hipcc -c -o a.hip k.cpp`,               // .hip is -o's value
		`cd /b && hipcc -c "-include=a.hip" k.cpp`,       // an option
		`cd /b && echo $(date) > stamp`,                  // shell, but no HIP source
	} {
		if got, err := hipCompiles(ninjaCompdbEdge{Directory: "/b", Command: cmd}); err != nil || len(got) != 0 {
			t.Errorf("hipCompiles(%q) = %+v, %v; want no entry and no error", cmd, got, err)
		}
	}
	if got, err := hipCompiles(ninjaCompdbEdge{Directory: "/b", Command: `cd /b && hipcc -c k.hip -o k.o -j$(nproc)`}); err == nil {
		t.Errorf("a HIP compile with $(nproc) gave %+v and no error", got)
	}
}
