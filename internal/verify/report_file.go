package verify

import (
	"context"

	"github.com/mlxbuild/mlxbuild/internal/reportfile"
)

// writeReport writes a report where MLXBUILD_REPORT points, as the user
// means it (reportfile: a link followed, a device or FIFO written into,
// a regular file replaced atomically, a missing folder refused).
func writeReport(ctx context.Context, path string, data []byte) error {
	return reportfile.Write(ctx, reportfile.Target{Path: path, What: "verify report", Variable: ReportEnv}, data)
}
