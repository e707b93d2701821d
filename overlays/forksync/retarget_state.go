package forksync

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"

	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
)

// retargetState is what a conflicted retarget leaves for the next run: the
// two pins, and for each conflicted core file the hash of the overlay's copy
// that it merged. A resolution differs from both sides in the lines that
// conflicted, so merging it again would conflict again, forever: a re-run
// between the same pins takes instead an overlay file that changed since
// the conflict, and holds no conflict marker, as the user's resolution.
type retargetState struct {
	From  string            `json:"from"`
	To    string            `json:"to"`
	Files map[string]string `json:"files"` // core file -> sha256 of the overlay's copy at the conflict
}

// retargetStateFile is where the state of overlay's last conflicted
// retarget is kept, beside its staging directory.
func retargetStateFile(overlay string) string { return retargetStageDir(overlay) + ".json" }

// readRetargetState reads the state a conflicted retarget left; nil when
// there is none, or it is unreadable (the re-run merges everything again).
func readRetargetState(overlay string) *retargetState {
	data, err := os.ReadFile(retargetStateFile(overlay))
	if err != nil {
		return nil
	}
	var s retargetState
	if json.Unmarshal(data, &s) != nil || s.Files == nil {
		return nil
	}
	return &s
}

// writeRetargetState records the conflicts of a retarget from..to: each
// path's content in the overlay as it was merged.
func writeRetargetState(overlay, from, to string, conflicted map[string][]byte) error {
	s := retargetState{From: from, To: to, Files: map[string]string{}}
	for p, data := range conflicted {
		s.Files[p] = contentHash(data)
	}
	data, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Options{Perm: 0o644, What: "retarget state"}.Write(retargetStateFile(overlay), append(data, '\n'))
}

// clearRetargetState removes the state once a retarget went through.
func clearRetargetState(overlay string) error {
	if err := os.Remove(retargetStateFile(overlay)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("forksync: removing %s: %w", retargetStateFile(overlay), err)
	}
	return nil
}

// resolved says whether the overlay's copy of path, now data, is the user's
// resolution of the conflict s recorded: it changed since, and no line of it
// is a conflict marker.
func (s *retargetState) resolved(path string, data []byte) bool {
	h, ok := s.Files[path]
	return ok && h != contentHash(data) && !hasConflictMarkers(data)
}

func contentHash(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

// hasConflictMarkers says whether a line of data starts a conflict marker
// as merge3 writes them.
func hasConflictMarkers(data []byte) bool {
	for _, line := range bytes.Split(data, []byte("\n")) {
		for _, m := range []string{"<<<<<<< ", "||||||| ", ">>>>>>> "} {
			if bytes.HasPrefix(line, []byte(m)) {
				return true
			}
		}
		if string(bytes.TrimRight(line, "\r")) == "=======" {
			return true
		}
	}
	return false
}
