package targets

import (
	"io"
	"sync"

	"github.com/mlxbuild/mlxbuild/internal/flow"
)

// Option changes how the imported targets run, for a parent magefile that
// needs more than the project file and the environment give. Mage does not
// take Use as a target: it has a variadic parameter.
type Option func(*flow.Options)

var (
	optMu sync.Mutex
	opts  flow.Options
)

// Use sets options for every target run after it, typically from the
// parent magefile's init function.
func Use(options ...Option) {
	optMu.Lock()
	defer optMu.Unlock()
	for _, o := range options {
		o(&opts)
	}
}

// WithDir makes targets look for mlxbuild.yaml from dir instead of the
// working directory.
func WithDir(dir string) Option { return func(o *flow.Options) { o.Dir = dir } }

// WithEnv makes targets read variables through env instead of os.Getenv.
func WithEnv(env func(string) string) Option { return func(o *flow.Options) { o.Env = env } }

// WithOutput sends results and diagnostics to the given writers.
func WithOutput(stdout, stderr io.Writer) Option {
	return func(o *flow.Options) { o.Stdout, o.Stderr = stdout, stderr }
}

func current() flow.Options {
	optMu.Lock()
	defer optMu.Unlock()
	return opts
}
