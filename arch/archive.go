package arch

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// archiveMember is one file stored in a static archive (lib*.a).
type archiveMember struct {
	name string
	data []byte
}

const (
	arMagic     = "!<arch>\n"
	arThinMagic = "!<thin>\n"
	arHeaderLen = 60
)

// isArchive reports whether data starts like a static archive (regular or thin).
func isArchive(data []byte) bool {
	return bytes.HasPrefix(data, []byte(arMagic)) || bytes.HasPrefix(data, []byte(arThinMagic))
}

// parseArchive splits a static archive into its members, so the code objects
// of each object file can be compared on their own: a union over the whole
// archive would hide an archive whose objects were built for different lists.
// It reads the common (System V/GNU) format with its long-name table ("//",
// names "/N") and BSD names ("#1/N"); the symbol tables ("/", "/SYM64/",
// "__.SYMDEF") are skipped. A thin archive, whose members live elsewhere, is
// an error: mlxbuild's builds do not make them.
func parseArchive(data []byte) ([]archiveMember, error) {
	if bytes.HasPrefix(data, []byte(arThinMagic)) {
		return nil, fmt.Errorf("a thin archive (its objects are stored outside it): not supported")
	}
	if !bytes.HasPrefix(data, []byte(arMagic)) {
		return nil, fmt.Errorf("not a static archive (no %q header)", strings.TrimSpace(arMagic))
	}
	var members []archiveMember
	var longNames []byte
	for p := len(arMagic); p < len(data); {
		if data[p] == '\n' && p+1 == len(data) {
			break // the padding byte after an odd-sized last member
		}
		if p+arHeaderLen > len(data) {
			return nil, fmt.Errorf("member header at byte %d is cut off", p)
		}
		h := data[p : p+arHeaderLen]
		if string(h[58:60]) != "`\n" {
			return nil, fmt.Errorf("member header at byte %d is malformed", p)
		}
		size, err := strconv.ParseUint(strings.TrimSpace(string(h[48:58])), 10, 63)
		if err != nil {
			return nil, fmt.Errorf("member header at byte %d has a bad size %q", p, strings.TrimSpace(string(h[48:58])))
		}
		start := p + arHeaderLen
		if size > uint64(len(data)-start) {
			return nil, fmt.Errorf("member at byte %d claims %d bytes; only %d remain", p, size, len(data)-start)
		}
		body := data[start : start+int(size)]
		name := strings.TrimRight(string(h[0:16]), " ")
		p = start + int(size)
		if size%2 == 1 {
			p++
		}
		switch {
		case name == "/" || name == "/SYM64/" || strings.HasPrefix(name, "__.SYMDEF"):
			continue
		case name == "//":
			longNames = body
			continue
		case strings.HasPrefix(name, "#1/"):
			n, err := strconv.Atoi(name[3:])
			if err != nil || n < 0 || n > len(body) {
				return nil, fmt.Errorf("member at byte %d has a bad BSD name %q", start-arHeaderLen, name)
			}
			name, body = strings.TrimRight(string(body[:n]), "\x00"), body[n:]
			if name == "__.SYMDEF" || name == "__.SYMDEF SORTED" {
				continue
			}
		case len(name) > 1 && name[0] == '/':
			off, err := strconv.Atoi(name[1:])
			if err != nil || off < 0 || off >= len(longNames) {
				return nil, fmt.Errorf("member at byte %d names entry %q of a long-name table that does not have it", start-arHeaderLen, name)
			}
			end := bytes.IndexByte(longNames[off:], '\n')
			if end < 0 {
				end = len(longNames) - off
			}
			name = strings.TrimSuffix(string(longNames[off:off+end]), "/")
		default:
			name = strings.TrimSuffix(name, "/")
		}
		members = append(members, archiveMember{name: name, data: body})
	}
	return members, nil
}
