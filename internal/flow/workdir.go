package flow

import (
	"errors"
	"io/fs"
	"os"

	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// checkWorkingDir refuses to run in a working directory that was deleted
// (a `git worktree remove` or `rm -rf` of the folder a shell still sits
// in). Every program mlxbuild starts inherits it, and CMake, for one,
// cannot find out where it is: its failure would read as a missing cmake,
// sending the user to reinstall it. So it is asked first, of the system,
// whatever Options.Dir says.
func checkWorkingDir() error {
	_, err := os.Getwd()
	if err == nil {
		return nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fail.Configf("the working directory was deleted (%v); cd to the project (or any directory that exists) and run again", err)
	}
	return fail.Configf("the working directory cannot be read (%v); cd to the project and run again", err)
}
