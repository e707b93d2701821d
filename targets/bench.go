package targets

import (
	"context"

	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/benchcsv"
	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/flow"
	"github.com/mlxbuild/mlxbuild/internal/logittrace"
)

// Bench compares benchmark results.
type Bench mg.Namespace

// Compare pairs two benchmark CSVs by model and reports decode ratios.
//
//	bench:compare BEFORE.csv AFTER.csv [-reference] [-allowCommitChange]
//	    [-promptTolerance=0.10] [-catalog=docs/model-catalog.tsv]
//
// Rows pair by model through the alias catalog (-catalog, default
// docs/model-catalog.tsv when present); the median, quartiles and every pair
// are printed, and every model left out is listed with its reason (prompt
// lengths apart by more than -promptTolerance, default 0.10; another
// mlxcel_commit unless -allowCommitChange; dates apart in -reference mode, for
// a baseline from another runtime such as mlx-lm; non-generative; failed,
// skipped or unreadable, or measured on one side only). A model measured
// twice in a file is compared by its later row, and the report names the row
// it replaced. Files of different harnesses, and -reference together with
// -allowCommitChange, are refused (exit 2). MLXBUILD_REPORT=json:<path> also
// writes the comparison as JSON.
func (Bench) Compare(before, after string, reference, allowCommitChange *bool, promptTolerance *float64, catalog *string) error {
	return runTarget(context.Background(), "bench:compare", func(ctx context.Context, o flow.Options) error {
		return compare(ctx, o, before, after, reference, allowCommitChange, promptTolerance, catalog)
	}, flag("catalog", catalog))
}

// compare reads bench:compare's flags and runs the comparison.
func compare(ctx context.Context, o flow.Options, before, after string, reference, allowCommitChange *bool, promptTolerance *float64, catalog *string) error {
	if err := flagsAfter("bench:compare", "bench:compare BEFORE.csv AFTER.csv [-reference] [-allowCommitChange] [-promptTolerance=F] [-catalog=FILE]", before, after); err != nil {
		return err
	}
	opt := benchcsv.DefaultOptions()
	if reference != nil {
		opt.Reference = *reference
	}
	if allowCommitChange != nil {
		opt.AllowCommitChange = *allowCommitChange
	}
	if promptTolerance != nil {
		if *promptTolerance < 0 {
			return fail.Configf("-promptTolerance=%g: a tolerance is a fraction >= 0, such as 0.10", *promptTolerance)
		}
		opt.PromptTolerance = *promptTolerance
	}
	cat, named := benchcsv.DefaultCatalog, false
	if catalog != nil && *catalog != "" {
		cat, named = *catalog, true
	}
	return benchcsv.Run(ctx, o.Stdout, before, after, cat, named, opt, o.Env(benchcsv.ReportEnv))
}

// Traces compares two logit traces of one corpus, position by position.
//
//	bench:traces REFERENCE.tsv CANDIDATE.tsv [-decided=2.0]
//
// It reports top-1 disagreement over all positions and over decided ones
// (the reference's top-two logit gap >= -decided, default 2.0), disagreement
// by gap, where the reference's choice ranks in the candidate, |logit delta|
// percentiles, both perplexities and a one-line verdict. Exit 0 however much
// they disagree; 2 when the traces are not of the same positions and tokens.
func (Bench) Traces(reference, candidate string, decided *float64) error {
	return runTarget(context.Background(), "bench:traces", func(ctx context.Context, o flow.Options) error {
		if err := flagsAfter("bench:traces", "bench:traces REFERENCE.tsv CANDIDATE.tsv [-decided=F]", reference, candidate); err != nil {
			return err
		}
		gap := logittrace.DefaultDecided
		if decided != nil {
			gap = *decided
		}
		return logittrace.Run(ctx, o.Stdout, reference, candidate, gap)
	})
}
