package backends

import (
	"strconv"

	"github.com/hashicorp/go-version"
)

// memoResult is a discovery result as the memo keeps it: named text
// fields, written and read by hand (encoding/json's reflection cost each
// no-op build more than reading the two entries).
type memoResult interface {
	fields() []memoField
}

// memoField is one field of a memoResult: its name, its text, and how to
// set it from text (false for a value it does not take).
type memoField struct {
	name string
	get  func() string
	set  func(string) bool
}

func textField(name string, p *string) memoField {
	return memoField{name, func() string { return *p }, func(s string) bool { *p = s; return true }}
}

func boolField(name string, p *bool) memoField {
	return memoField{name, func() string { return strconv.FormatBool(*p) }, func(s string) bool {
		b, err := strconv.ParseBool(s)
		*p = b
		return err == nil
	}}
}

// versionField keeps a version as its String, "" for none.
func versionField(name string, p **version.Version) memoField {
	return memoField{name, func() string {
		if *p == nil {
			return ""
		}
		return (*p).String()
	}, func(s string) bool {
		if s == "" {
			*p = nil
			return true
		}
		v, err := version.NewVersion(s)
		*p = v
		return err == nil
	}}
}

func (r *rocmToolchain) fields() []memoField {
	return []memoField{
		textField("root", &r.root), textField("from", &r.from), textField("lib_dir", &r.LibDir), textField("bin_dir", &r.binDir),
		textField("include_dir", &r.includeDir), versionField("version", &r.version), textField("version_from", &r.versionFrom),
		textField("hip_compiler", &r.hipCompiler), textField("device_lib_dir", &r.deviceLibDir), boolField("multiarch", &r.multiarchLayout),
	}
}

func (c *cudaToolkit) fields() []memoField {
	return []memoField{
		textField("root", &c.root), textField("from", &c.from), textField("bin_dir", &c.BinDir), textField("lib_dir", &c.LibDir),
		textField("include_dir", &c.includeDir), textField("nvcc", &c.NVCC), versionField("version", &c.version),
	}
}

func (f *toolFound) fields() []memoField {
	return []memoField{textField("path", &f.path), versionField("version", &f.version)}
}

// memoFields is result's fields as name and text.
func memoFields(result memoResult) [][2]string {
	var out [][2]string
	for _, f := range result.fields() {
		out = append(out, [2]string{f.name, f.get()})
	}
	return out
}

// setMemoFields sets result's fields from name and text; false when a name
// or a value is not one result takes, which voids the entry.
func setMemoFields(result memoResult, kvs [][2]string) bool {
	fs := result.fields()
	for _, kv := range kvs {
		i := 0
		for i < len(fs) && fs[i].name != kv[0] {
			i++
		}
		if i == len(fs) || !fs[i].set(kv[1]) {
			return false
		}
	}
	return true
}
