package benchcsv

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/reportfile"
	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// ReportEnv is the variable that asks for a machine-readable report.
const ReportEnv = "MLXBUILD_REPORT"

// ReportEnvError is a MLXBUILD_REPORT value that names no known format.
type ReportEnvError struct{ Value string }

// Kind is configuration: the variable is the user's to fix.
func (e *ReportEnvError) Kind() fail.Kind { return fail.Config }

func (e *ReportEnvError) Error() string {
	return fmt.Sprintf("%s=%q: unknown report format; set %s=json:<path> or leave it unset", ReportEnv, e.Value, ReportEnv)
}

// ReportPath reads a MLXBUILD_REPORT value: "" means no report, "json:<path>"
// a JSON report at path; anything else is a *ReportEnvError.
func ReportPath(value string) (string, error) {
	if value == "" {
		return "", nil
	}
	path, ok := strings.CutPrefix(value, "json:")
	if !ok || path == "" {
		return "", &ReportEnvError{Value: value}
	}
	// The path is the user's own choice, absolute or through links as it
	// likes; only a NUL or a line break, which no file name should hold, is
	// refused (a newline pasted with the value would name a file nobody
	// can find).
	if err := safepath.CheckControl(path); err != nil {
		return "", fail.Configf("%s=json:<path>: %v", ReportEnv, err)
	}
	return path, nil
}

// WriteJSON writes the report to path as reportfile does for every
// report: a regular file atomically (a reader, a CI step or a dashboard,
// sees the old file or the whole new one, never half of it), a link's
// target, a device or a FIFO as they are, and a missing folder refused.
func WriteJSON(ctx context.Context, path string, r *Report) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the comparison report: %w", err)
	}
	data = append(data, '\n')
	return reportfile.Write(ctx, reportfile.Target{Path: path, What: "comparison report", Variable: ReportEnv}, data)
}

// Run is bench:compare: it loads both files and the catalog, compares them
// under opt, writes the text to w and, when reportEnv (the value of
// MLXBUILD_REPORT) asks for it, the JSON report. catalog is the alias file;
// named says the user gave it (so its absence is an error). Errors that
// are the user's to fix are of kind fail.Config.
func Run(ctx context.Context, w io.Writer, beforePath, afterPath, catalog string, named bool, opt Options, reportEnv string) error {
	if err := opt.Check(); err != nil {
		return err
	}
	jsonPath, err := ReportPath(reportEnv)
	if err != nil {
		return err
	}
	if opt.Aliases, err = LoadCatalog(ctx, catalog, named); err != nil {
		return err
	}
	before, err := Load(ctx, beforePath)
	if err != nil {
		return err
	}
	after, err := Load(ctx, afterPath)
	if err != nil {
		return err
	}
	rep, err := Compare(before, after, opt)
	if err != nil {
		return err
	}
	if err := WriteTable(w, rep, before, after); err != nil {
		return fmt.Errorf("printing the comparison: %w", err)
	}
	if jsonPath != "" {
		return WriteJSON(ctx, jsonPath, rep)
	}
	return nil
}
