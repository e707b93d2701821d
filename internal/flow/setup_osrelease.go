package flow

import (
	"bufio"
	"os"
	"strings"
)

// osReleasePath is read for the distribution; a seam for tests.
var osReleasePath = "/etc/os-release"

// osRelease holds the KEY=value lines of os-release(5), quotes removed.
type osRelease map[string]string

// readOSRelease reads path; a missing or unreadable file gives an empty
// osRelease (not Debian-like).
func readOSRelease(path string) osRelease {
	rel := osRelease{}
	f, err := os.Open(path)
	if err != nil {
		return rel
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if ok {
			rel[k] = strings.Trim(v, `"'`)
		}
	}
	return rel
}

// debianLike says whether apt-get installs packages here: Debian, Ubuntu
// and their derivatives (ID_LIKE).
func (rel osRelease) debianLike() bool {
	for _, id := range strings.Fields(rel["ID"] + " " + rel["ID_LIKE"]) {
		if id == "debian" || id == "ubuntu" {
			return true
		}
	}
	return false
}
