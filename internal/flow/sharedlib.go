package flow

import "os/exec"

// lookPath is exec.LookPath, named here so tests can read the intent.
var lookPath = exec.LookPath
