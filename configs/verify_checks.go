package configs

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// VerifyCheck is one check a spec's verify: list may name: how the project
// file configures it and what it reads. The spec's validation takes the
// names from VerifyChecks and the project file's from its sections;
// verify:<backend> runs and reports each check by this entry.
type VerifyCheck struct {
	// Name is the check as a spec's verify: list and every report name it.
	Name string
	// Section is the key under backends.<backend>.verify that holds its
	// declarations; "" when it has none.
	Section string
	// Folder is the key whose scope: and root: say where it reads (often
	// Section); "" when it reads no folder of the project's but what the
	// build made.
	Folder string
	// Scope is where it reads when Folder's section says nothing: overlay,
	// tree or repo.
	Scope string
	// NeedsBuild is true for a check that reads the build's products, so it
	// cannot run when the build did not.
	NeedsBuild bool
	// Undeclared, when not "", is what Section must declare for the check
	// to run at all ("vendored/owned files"); without it the check is
	// skipped, saying so.
	Undeclared string
}

// VerifyChecks are the checks verify knows, each once, in the order
// messages list them: package flow's built-in checks (builtin_gen.go copies
// their entries from there, as go generate ./configs reads them), then any
// added with AddVerifyCheck.
var VerifyChecks = slices.Clone(builtinVerifyChecks)

// AddVerifyCheck adds a check to VerifyChecks, so a spec's verify: list
// may name it (package flow's RegisterCheck calls it with the check's
// maker). Its Section and Folder must be keys of the project file's
// verify section, which this package's schema declares.
func AddVerifyCheck(c VerifyCheck) error {
	if _, ok := VerifyCheckNamed(c.Name); ok || c.Name == "" {
		return fmt.Errorf("configs: verify check %q is empty or exists already", c.Name)
	}
	var v Verify
	for _, key := range []string{c.Section, c.Folder} {
		if key != "" && !v.section(key).IsValid() {
			return fmt.Errorf("configs: verify check %s names %q, which is no key of the project file's verify section", c.Name, key)
		}
	}
	VerifyChecks = append(VerifyChecks, c)
	return nil
}

// VerifyCheckNamed is the check called name.
func VerifyCheckNamed(name string) (VerifyCheck, bool) {
	for _, c := range VerifyChecks {
		if c.Name == name {
			return c, true
		}
	}
	return VerifyCheck{}, false
}

func verifyCheckNames() []string {
	names := make([]string, len(VerifyChecks))
	for i, c := range VerifyChecks {
		names[i] = c.Name
	}
	return names
}

// section is the field of v whose yaml key is key (the zero Value when
// none is).
func (v *Verify) section(key string) reflect.Value {
	rv := reflect.ValueOf(v).Elem()
	for i := 0; i < rv.NumField(); i++ {
		if strings.Split(rv.Type().Field(i).Tag.Get("yaml"), ",")[0] == key {
			return rv.Field(i)
		}
	}
	return reflect.Value{}
}

// Declares reports whether the project gave the section called key: a
// mapping, or a list with an entry.
func (v *Verify) Declares(key string) bool {
	f := v.section(key)
	switch {
	case !f.IsValid():
		return false
	case f.Kind() == reflect.Slice:
		return f.Len() > 0
	}
	return !f.IsNil()
}

// Folder is the scope and root the section called key gives; the zero
// folder (each check's own scope, no root) when the project gave none.
func (v *Verify) Folder(key string) verifyFolder {
	f := v.section(key)
	if !f.IsValid() || f.Kind() != reflect.Pointer || f.IsNil() {
		return verifyFolder{}
	}
	if in, ok := f.Interface().(interface{ folder() verifyFolder }); ok {
		return in.folder()
	}
	return verifyFolder{}
}

// folder is the section's own scope and root, promoted to every section
// that embeds it.
func (f verifyFolder) folder() verifyFolder { return f }
