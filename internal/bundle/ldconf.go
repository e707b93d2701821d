package bundle

import (
	"os"
	"path/filepath"
	"strings"
)

// defaultDirs are the directories the dynamic loader searches after
// /etc/ld.so.conf's (glibc's trusted directories; Debian's multiarch
// ones come from ld.so.conf.d).
var defaultDirs = []string{"/lib64", "/usr/lib64", "/lib", "/usr/lib"}

// SystemDirs are the directories the dynamic loader of this machine
// searches for a library no run path finds, in order: those of conf (the
// ld.so.conf file, its include lines followed) and then the defaults.
// ld.so.cache is made from the same list by ldconfig, so reading the list
// finds what the cache would, without a cache a stale ldconfig left.
func SystemDirs(conf string) []string {
	var dirs []string
	seen := map[string]bool{}
	readConf(conf, 0, seen, func(d string) { dirs = append(dirs, d) })
	for _, d := range defaultDirs {
		if !seen["dir:"+d] {
			seen["dir:"+d] = true
			dirs = append(dirs, d)
		}
	}
	return dirs
}

// readConf reads one ld.so.conf file; depth bounds include loops.
func readConf(file string, depth int, seen map[string]bool, add func(string)) {
	data, err := os.ReadFile(file)
	if err != nil || depth > 8 || seen["file:"+file] {
		return
	}
	seen["file:"+file] = true
	for _, d := range parseConf(string(data)) {
		if d.include == "" {
			if !seen["dir:"+d.dir] {
				seen["dir:"+d.dir] = true
				add(d.dir)
			}
			continue
		}
		pattern := d.include
		if !filepath.IsAbs(pattern) {
			pattern = filepath.Join(filepath.Dir(file), pattern)
		}
		matches, _ := filepath.Glob(pattern)
		for _, m := range matches {
			readConf(m, depth+1, seen, add)
		}
	}
}

// confLine is one entry of ld.so.conf: a directory, or an include pattern.
type confLine struct{ dir, include string }

// parseConf reads ld.so.conf's syntax as ldconfig does: '#' starts a
// comment, "include PATTERN" reads other files, "hwcap" lines are
// ignored, and other words (separated by white space, ':' or ',') are
// absolute directories.
func parseConf(text string) []confLine {
	var out []confLine
	for _, line := range strings.Split(text, "\n") {
		line, _, _ = strings.Cut(line, "#")
		fields := strings.Fields(line)
		if len(fields) == 0 || fields[0] == "hwcap" {
			continue
		}
		if fields[0] == "include" {
			for _, p := range fields[1:] {
				out = append(out, confLine{include: p})
			}
			continue
		}
		for _, w := range strings.FieldsFunc(line, func(r rune) bool { return r == ':' || r == ',' || r == ' ' || r == '\t' || r == '\r' }) {
			if strings.HasPrefix(w, "/") {
				out = append(out, confLine{dir: filepath.Clean(w)})
			}
		}
	}
	return out
}

// find is the first dirs/<soname> that is a file.
func find(soname string, dirs []string) string {
	for _, d := range dirs {
		if p := filepath.Join(d, soname); isFile(p) {
			return p
		}
	}
	return ""
}
