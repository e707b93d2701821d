package cache

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ConfigureRecordFile is the name, inside a backend's build directory, of the
// record of what CMake was last configured with. It lives in the build
// directory because it describes that directory's CMake cache: whatever
// removes one removes the other.
const ConfigureRecordFile = "mlxbuild-configure.json"

// launcherPrefix starts the name of each compiler launcher define in a
// configure record. The launcher is no stamp input (switching ccache on must
// not rebuild the tree) but CMake must be configured again when it changes.
const launcherPrefix = "launcher:"

// overlayPresent is the value of an overlay file's entry in a configure
// record: CMake depends on which overlay files exist (a glob may see them),
// not on their content, which Ninja follows.
const overlayPresent = "+"

// ConfigureRecord is what CMake was last configured with. It is written
// with Done false before configure starts and again with Done true once
// configure succeeded, so a configure that was interrupted or failed, and a
// configure whose build then failed or was killed, both leave a record that
// tells the next run what the build directory really holds.
type ConfigureRecord struct {
	Done   bool              `json:"done"`
	Inputs map[string]string `json:"inputs"`
}

// configureInputs is what a configure depends on, from a build's stamp and
// its launcher defines: every stamp input but overlay file contents, the
// set of overlay files, and the launcher defines.
func configureInputs(s *Stamp, launcher map[string]string) map[string]string {
	in := map[string]string{}
	if s != nil {
		for k, v := range s.Inputs {
			if strings.HasPrefix(k, overlayPrefix) {
				v = overlayPresent
			}
			in[k] = v
		}
	}
	for k, v := range launcher {
		in[launcherPrefix+k] = v
	}
	return in
}

// ReadConfigureRecord reads the record in buildDir; none yet is nil, nil.
func ReadConfigureRecord(buildDir string) (*ConfigureRecord, error) {
	path := filepath.Join(buildDir, ConfigureRecordFile)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("cache: reading %s: %w; check its permissions", path, err)
	}
	var r ConfigureRecord
	if err := json.Unmarshal(data, &r); err != nil {
		// A torn or foreign record says nothing about the build directory:
		// treat it as absent, which reconfigures.
		return nil, nil
	}
	if r.Inputs == nil {
		r.Inputs = map[string]string{}
	}
	return &r, nil
}

// WriteConfigureRecord replaces the record in buildDir atomically, creating
// the directory when needed.
func WriteConfigureRecord(buildDir string, r ConfigureRecord) error {
	if err := os.MkdirAll(buildDir, 0o755); err != nil {
		return fmt.Errorf("cache: creating %s: %w; check that the cache is writable", buildDir, err)
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("cache: encoding the configure record: %w", err)
	}
	return atomicWrite("configure record", filepath.Join(buildDir, ConfigureRecordFile), append(data, '\n'))
}
