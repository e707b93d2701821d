package flow

import (
	"context"

	"github.com/mlxbuild/mlxbuild/internal/cmake"

	"github.com/mlxbuild/mlxbuild/internal/plural"
)

// completeCompileDB puts the custom-command HIP compiles (the ROCm fork's
// model) into the build's compile_commands.json, where CMake lists only the
// compiles of languages it knows, so clangd and clang-tidy see the HIP
// sources. It runs after each configure and each build, since Ninja
// regenerates by itself; when CMake did not rewrite the file it costs a stat.
// A database is an editor's aid, not a build output: what goes wrong is a
// warning, and the build's result stands.
func (p *Prepared) completeCompileDB(ctx context.Context, warn func(string, ...any)) {
	if ctx.Err() != nil {
		return // stopped: say only that
	}
	res, err := cmake.CompleteCompileDB(ctx, p.Layout.Build)
	if err != nil {
		warn("%s lacks the custom-command HIP compiles: %v", res.Path, err)
		return
	}
	if n := len(res.Skipped); n > 0 {
		warn("%s leaves out %s whose command is not a fixed argument list (first: %s); write the custom command with VERBATIM and literal arguments", res.Path, plural.Count(n, "HIP compile"), res.Skipped[0])
	}
}
