package targets

import (
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/magefile/mage/mg"
	"github.com/magefile/mage/parse"

	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// targetValues are the receivers (and the plain functions) Mage finds
// targets on, so each target can be called by the name Mage reads.
var targetValues = map[string]reflect.Value{
	"Arch": reflect.ValueOf(Arch{}), "Bench": reflect.ValueOf(Bench{}), "Build": reflect.ValueOf(Build{}), "Bundle": reflect.ValueOf(Bundle{}),
	"Cache": reflect.ValueOf(Cache{}), "Deps": reflect.ValueOf(Deps{}), "Gpu": reflect.ValueOf(Gpu{}),
	"Overlay": reflect.ValueOf(Overlay{}), "Plan": reflect.ValueOf(Plan{}), "Verify": reflect.ValueOf(Verify{}),
	"Doctor": reflect.ValueOf(Doctor), "Setup": reflect.ValueOf(Setup),
}

// TestEveryEmptyStringFlagIsAUsageError reads this package as Mage does and
// calls every target once for each of its optional string flags, that flag
// given empty (`-backend=` from an unset CI variable) and the others left
// out: each must refuse with exit 2 naming the flag, before any work (the
// project directory holds nothing, and cache:clean once printed "cleaned
// every backend"). A target added with a string flag is checked too.
func TestEveryEmptyStringFlagIsAUsageError(t *testing.T) {
	useForTest(t, nil)
	srcs, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, s := range srcs {
		if !strings.HasSuffix(s, "_test.go") {
			files = append(files, s)
		}
	}
	info, err := parse.Package(".", files, false)
	if err != nil {
		t.Fatal(err)
	}
	checked := map[string]bool{}
	for _, fn := range info.Funcs {
		fv, name := targetFunc(t, fn)
		for i, a := range fn.Args {
			if !a.Optional || a.Type != "string" {
				continue
			}
			checked[name+" -"+a.Name] = true
			err := callWithEmptyFlag(fv, fn, i)
			if err == nil || mg.ExitStatus(err) != 2 || !strings.Contains(err.Error(), "-"+a.Name+" was given an empty value") || !strings.Contains(err.Error(), name+":") {
				t.Errorf("%s -%s= (empty): got %v, want exit 2 naming %s and -%s", name, a.Name, err, name, a.Name)
			}
		}
	}
	// A parser that found nothing would pass every rule: the flags that
	// pick a backend must be among those checked.
	for _, want := range []string{"cache:clean -backend", "deps:fetch -mirror", "overlay:drift -candidate", "bench:compare -catalog", "overlay:sync -backend"} {
		if !checked[want] {
			t.Errorf("%s was not checked; checked: %v", want, checked)
		}
	}
}

// targetFunc is the callable of a target Mage lists, and its name as the
// user types it.
func targetFunc(t *testing.T, fn *parse.Function) (reflect.Value, string) {
	t.Helper()
	name := lowerFirst(fn.Name)
	if fn.Receiver == "" {
		v, ok := targetValues[fn.Name]
		if !ok {
			t.Fatalf("target %s: add it to targetValues", name)
		}
		return v, name
	}
	recv, ok := targetValues[fn.Receiver]
	if !ok {
		t.Fatalf("namespace %s: add it to targetValues", fn.Receiver)
	}
	return recv.MethodByName(fn.Name), lowerFirst(fn.Receiver) + ":" + name
}

// callWithEmptyFlag calls a target with its optional argument at index
// empty given as "", the other optional ones absent (nil) and the
// positional ones zero.
func callWithEmptyFlag(fv reflect.Value, fn *parse.Function, empty int) error {
	ft := fv.Type()
	var in []reflect.Value
	if fn.IsContext {
		in = append(in, reflect.ValueOf(context.Background()))
	}
	for i := range fn.Args {
		pt := ft.In(len(in))
		v := reflect.Zero(pt)
		if i == empty {
			v = reflect.New(pt.Elem())
		}
		in = append(in, v)
	}
	out := fv.Call(in)
	err, _ := out[len(out)-1].Interface().(error)
	return err
}

// TestCacheCleanWithAnEmptyBackendRemovesNothing: `cache:clean
// -backend=$BACKEND` with BACKEND unset cleaned every backend ("cleaned
// every backend"); now it is exit 2 and the cache is byte for byte as it
// was.
func TestCacheCleanWithAnEmptyBackendRemovesNothing(t *testing.T) {
	stdout, _ := useForTest(t, nil)
	dir := current().Dir
	cacheRoot := filepath.Join(dir, "cache")
	testutil.WriteFile(t, filepath.Join(dir, "mlxbuild.yaml"), "source:\n  dir: mlx\n  pin: 81ba1c6a52d8b1e49e0e0a0de8c1a3c2e4c2b0a1\ncache: cache\n")
	testutil.WriteFile(t, filepath.Join(dir, "mlx", "CMakeLists.txt"), "project(mlx)\n")
	// The cache as a build leaves it: the tag, a backend's build and tree.
	testutil.WriteFile(t, filepath.Join(cacheRoot, "CACHEDIR.TAG"), "Signature: 8a477f597d28d172789f06886806bc55\n# This directory is a cache made by mlxbuild; `mage cache:clean` removes it.\n")
	testutil.WriteFile(t, filepath.Join(cacheRoot, "cpu", "build", "libmlx.a"), "archive")
	testutil.WriteFile(t, filepath.Join(cacheRoot, "cpu", "tree", "mlx", "array.cpp"), "source")
	before := testutil.Snapshot(t, cacheRoot)
	empty := ""
	err := (Cache{}).Clean(&empty, nil)
	if err == nil || mg.ExitStatus(err) != 2 || !strings.Contains(err.Error(), "-backend") {
		t.Errorf("cache:clean -backend= gave %v, want exit 2 naming -backend", err)
	}
	if d := testutil.SnapshotDiff(before, testutil.Snapshot(t, cacheRoot)); d != "" {
		t.Errorf("cache:clean -backend= changed the cache:\n%s\nstdout: %s", d, stdout.String())
	}
}
