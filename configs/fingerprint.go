package configs

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// fingerprintMemo is a built-in spec's fingerprint, computed when
// builtin_gen.go was generated. It holds for the Spec at of only: a shallow
// copy (s2 := *s, then a change) has the memo but not the address, and
// falls back to hashing. Builtin sets it on the fresh Spec it returns;
// Merge's clone drops it.
type fingerprintMemo struct {
	of  *Spec
	sum string
}

// Fingerprint is the hash the build stamp records as its "spec" input: the
// first 8 bytes of SHA-256 over the spec's JSON (its exported fields,
// positions and origins left out), hex. For a built-in spec it is the
// value computed at generate time, which saves encoding/json building its
// encoders for every spec type in every run.
//
// A caller that changes a Spec in place after Builtin returned it must
// not ask for its Fingerprint afterwards; none does (the build hashes the
// spec configs returns as is).
func (s *Spec) Fingerprint() string {
	if s.memo.of == s && s.memo.sum != "" {
		return s.memo.sum
	}
	return hashSpec(s)
}

// hashSpec is the fingerprint computed from the values: the hash of
// encoding/json's Marshal of the spec, what the stamp of every earlier
// mlxbuild compared, so a cache they wrote stays valid. specJSON writes the
// same bytes without Marshal's per-process set-up.
func hashSpec(s *Spec) string {
	data, ok := specJSON(s)
	if !ok {
		data, _ = json.Marshal(s)
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}
