package targets

import (
	"errors"

	"github.com/magefile/mage/mg"
)

// exitConfig is the exit status for bad configuration or usage (DESIGN.md).
const exitConfig = 2

// configError makes Mage exit with status 2. Mage reads the code through a
// type assertion on the returned error, so it must not be wrapped again.
func configError(err error) error {
	if err == nil {
		return nil
	}
	return mg.Fatal(exitConfig, err.Error())
}

// failed makes Mage exit with status 1, keeping a code an inner call chose.
func failed(err error) error {
	if err == nil {
		return nil
	}
	var coded interface{ ExitStatus() int }
	if errors.As(err, &coded) {
		return mg.Fatal(coded.ExitStatus(), err.Error())
	}
	return mg.Fatal(1, err.Error())
}

// exit maps an error from the packages to Mage's exit status: 2 for
// configuration and usage errors (they carry ExitStatus), else 1.
func exit(err error) error { return failed(err) }
