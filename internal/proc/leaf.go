package proc

import "context"

// RunLeaf runs a program that starts no program of its own and writes
// nothing a stop could leave half-written (`ninja -n`, a query), without the
// supervisor: it is the program's own process that must die with mlxbuild,
// and that is what the death signal does (Linux) or the process group stop
// does (elsewhere). It saves a second start of this binary, which is most
// of what a no-op costs above Ninja's own no-op. Everything else is as Run:
// explicit arguments, the context stops it, ErrTimeout and ErrInterrupted.
func RunLeaf(ctx context.Context, c Cmd) (Result, error) {
	return run(ctx, c, leafStarter)
}
