package bundle

import (
	"strings"
)

// defineValue finds the value of the compile definition name in a
// build.ninja's text: MLX compiles its JIT's header folder in as
// -DMLX_CCCL_DIR="<dir>" (written \"<dir>\" or "<dir>" inside Ninja's
// command lines), so the folder a binary looks in is read from the build
// that compiled it, not guessed. ok is false when no definition is found.
func defineValue(ninja, name string) (string, bool) {
	key := "-D" + name + "="
	for rest := ninja; ; {
		i := strings.Index(rest, key)
		if i < 0 {
			return "", false
		}
		rest = rest[i+len(key):]
		v := rest
		if end := strings.IndexAny(v, " \t\r\n"); end >= 0 {
			v = v[:end]
		}
		v = strings.TrimPrefix(strings.TrimPrefix(v, `\`), `"`)
		v = strings.TrimSuffix(strings.TrimSuffix(v, `"`), `\`)
		v = strings.TrimSuffix(v, `\`)
		if v != "" && strings.HasPrefix(v, "/") && !strings.ContainsAny(v, `"\$`) {
			return v, true
		}
	}
}
