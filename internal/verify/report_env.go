package verify

import (
	"fmt"
	"strings"
)

// ReportEnv is the environment variable that asks for a machine report.
const ReportEnv = "MLXBUILD_REPORT"

// ReportFromEnv parses the value of MLXBUILD_REPORT: `junit:<path>` or
// `json:<path>`. An empty value gives empty kind and path and no error.
func ReportFromEnv(v string) (kind, path string, err error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", "", nil
	}
	kind, path, ok := strings.Cut(v, ":")
	if !ok || (kind != "junit" && kind != "json") || strings.TrimSpace(path) == "" {
		return "", "", fmt.Errorf("%s=%q is not junit:<path> or json:<path>; set it to e.g. junit:out/verify.xml, or unset it", ReportEnv, v)
	}
	return kind, path, nil
}

// WriteReport writes rs in the format kind ("junit" or "json") to path.
func WriteReport(kind, path string, rs []Result) error {
	switch kind {
	case "junit":
		return WriteJUnit(path, rs)
	case "json":
		return WriteJSON(path, rs)
	}
	return fmt.Errorf("report kind %q is not junit or json", kind)
}
