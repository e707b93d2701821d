package targets

import (
	"github.com/magefile/mage/mg"

	"github.com/mlxbuild/mlxbuild/internal/fail"
	"github.com/mlxbuild/mlxbuild/internal/ui"
)

// exit is the outermost layer of every target: it turns an error from the
// packages into Mage's exit status (fail.ExitCode: 2 for configuration, 1
// otherwise) and the message the user reads (fail.Message, what to do said
// once). Mage reads the code through a type assertion on the returned error,
// so the mg.Fatal value must be returned as it is, never wrapped. Errors
// quote what came from outside (a path, a value of a file), so the message
// is escaped (ui.EscapeLines): an ESC sequence in a file name is shown, not
// obeyed by the user's terminal.
func exit(err error) error {
	if err == nil {
		return nil
	}
	return mg.Fatal(fail.ExitCode(err), ui.EscapeLines(fail.Message(err)))
}
