package bundle

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// checkHeaderHome looks for the runtime's own header folder as the
// runtime does (MLX's CUDA JIT: beside the bundle, then the first set
// variable, else the default home) and says what it found; false when
// the runtime would abort its first run-time compile. The remedy names
// the first variable set to the bundle itself when the bundle holds the
// folder (its include/ carries the headers).
func checkHeaderHome(dir string, h *HeaderHome, getenv func(string) string) (string, bool) {
	if getenv == nil {
		getenv = os.Getenv
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		abs = dir
	}
	if h.Beside != "" {
		if p := filepath.Join(filepath.Dir(abs), filepath.FromSlash(h.Beside)); isDir(p) {
			return "jit headers: " + p + " (beside the bundle)", true
		}
	}
	home, from := h.Default, "the default"
	for _, e := range h.Env {
		if v := getenv(e); v != "" {
			home, from = v, e
			break
		}
	}
	want := filepath.Join(home, filepath.FromSlash(h.Sub))
	if home != "" && isDir(want) {
		return fmt.Sprintf("jit headers: %s (%s)", want, from), true
	}
	why := fmt.Sprintf("%s is not a folder", want)
	if home == "" {
		why = "no home set"
	}
	if from == "the default" && len(h.Env) > 0 {
		why += " and " + strings.Join(h.Env, ", ") + " unset"
	} else if from != "the default" {
		why += " (" + from + ")"
	}
	fix := "install the toolkit's headers there"
	if len(h.Env) > 0 && isDir(filepath.Join(abs, filepath.FromSlash(h.Sub))) {
		fix = fmt.Sprintf("set %s=%s (the bundle's %s holds the headers)", h.Env[0], abs, h.Sub)
	}
	return fmt.Sprintf("jit headers: the runtime aborts its first run-time compile: %s; %s", why, fix), false
}
