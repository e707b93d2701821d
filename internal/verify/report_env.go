package verify

import (
	"context"
	"fmt"
	"strings"
)

// ReportEnv is the environment variable that asks for machine reports.
const ReportEnv = "MLXBUILD_REPORT"

// Report is one machine report to write: its kind ("junit" or "json") and
// path.
type Report struct{ Kind, Path string }

// ReportsFromEnv parses the value of MLXBUILD_REPORT: a comma-separated list
// of `junit:<path>` and `json:<path>`, so one CI run can keep both. An empty
// value gives no reports and no error.
func ReportsFromEnv(v string) ([]Report, error) {
	var out []Report
	for _, item := range strings.Split(v, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		kind, path, ok := strings.Cut(item, ":")
		if !ok || (kind != "junit" && kind != "json") || strings.TrimSpace(path) == "" {
			return nil, fmt.Errorf("%s=%q: %q is not junit:<path> or json:<path>; set it to e.g. junit:out/verify.xml,json:out/verify.json, or unset it", ReportEnv, v, item)
		}
		out = append(out, Report{kind, path})
	}
	return out, nil
}

// WriteReports writes rs in each report's format to its path, stopping at
// the first error; a write into a device or FIFO stops when ctx is done.
func WriteReports(ctx context.Context, reports []Report, rs []Result) error {
	for _, r := range reports {
		var err error
		switch r.Kind {
		case "junit":
			err = WriteJUnit(ctx, r.Path, rs)
		case "json":
			err = WriteJSON(ctx, r.Path, rs)
		default:
			err = fmt.Errorf("report kind %q is not junit or json", r.Kind)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
