package verify

import "github.com/mlxbuild/mlxbuild/internal/atomicfile"

// reportFile is how reports are written: through a temporary file and a
// rename, so a CI system never reads half a report. No fsync: a report
// guards against a reader seeing half of it, and a CI run that lost power
// is run again anyway.
var reportFile = atomicfile.Options{Perm: 0o644, NoSync: true, MkdirAll: true, What: "verify report"}
