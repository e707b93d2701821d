package backends

import "fmt"

// describeToolchain is a located toolchain in one phrase: "ROCm 5.2.21153 at
// /usr", with how its root was found in parentheses when that is not the
// root itself (a variable: "(ROCM_PATH)"), so a default location is not
// printed twice.
func describeToolchain(name string, version fmt.Stringer, root, from string) string {
	if from == "" || from == root {
		return fmt.Sprintf("%s %s at %s", name, version, root)
	}
	return fmt.Sprintf("%s %s at %s (%s)", name, version, root, from)
}
