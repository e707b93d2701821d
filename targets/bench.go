package targets

import (
	"os"

	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/benchcsv"
)

// Bench compares benchmark results.
type Bench mg.Namespace

// Compare prints tok/s before and after a change, per model, as ratios. It
// reads decode and prefill tok/s from two CSVs of the benchmark script;
// rows are matched by model. Runs with a different prompt_tokens, hardware or
// build_type are refused. MLXBUILD_REPORT=json:<path> also writes the
// comparison as JSON. Bad input or a refused comparison exits 2.
func (Bench) Compare(before, after string) error {
	err := benchcsv.Run(os.Stdout, before, after, os.Getenv(benchcsv.ReportEnv))
	return exit(err)
}
