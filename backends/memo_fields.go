package backends

import (
	"strconv"

	"github.com/hashicorp/go-version"
)

// memoResult is a discovery result as the memo keeps it: named text
// fields, written and read by hand (encoding/json's reflection cost each
// no-op build more than reading the two entries).
type memoResult interface {
	memoFields() [][2]string
	// setMemoField sets the named field from its text; false for a name
	// or value the result does not take, which voids the entry.
	setMemoField(name, value string) bool
}

func (r *ROCm) memoFields() [][2]string {
	return [][2]string{
		{"root", r.Root}, {"from", r.From}, {"lib_dir", r.LibDir}, {"bin_dir", r.BinDir},
		{"include_dir", r.IncludeDir}, {"version", versionText(r.Version)}, {"version_from", r.VersionFrom},
		{"hip_compiler", r.HIPCompiler}, {"device_lib_dir", r.DeviceLibDir}, {"multiarch", strconv.FormatBool(r.Multiarch)},
	}
}

func (r *ROCm) setMemoField(name, value string) bool {
	switch name {
	case "root":
		r.Root = value
	case "from":
		r.From = value
	case "lib_dir":
		r.LibDir = value
	case "bin_dir":
		r.BinDir = value
	case "include_dir":
		r.IncludeDir = value
	case "version":
		v, ok := parseVersionText(value)
		r.Version = v
		return ok
	case "version_from":
		r.VersionFrom = value
	case "hip_compiler":
		r.HIPCompiler = value
	case "device_lib_dir":
		r.DeviceLibDir = value
	case "multiarch":
		b, err := strconv.ParseBool(value)
		r.Multiarch = b
		return err == nil
	default:
		return false
	}
	return true
}

func (f *toolFound) memoFields() [][2]string {
	return [][2]string{{"path", f.Path}, {"version", versionText(f.Version)}}
}

func (f *toolFound) setMemoField(name, value string) bool {
	switch name {
	case "path":
		f.Path = value
	case "version":
		v, ok := parseVersionText(value)
		f.Version = v
		return ok
	default:
		return false
	}
	return true
}

// versionText is v as the memo keeps it: its String, "" for none.
func versionText(v *version.Version) string {
	if v == nil {
		return ""
	}
	return v.String()
}

func parseVersionText(s string) (*version.Version, bool) {
	if s == "" {
		return nil, true
	}
	v, err := version.NewVersion(s)
	return v, err == nil
}
