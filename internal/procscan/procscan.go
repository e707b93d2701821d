// Package procscan reads Linux's process table (/proc): each process's
// parent and state, and which processes carry a given environment variable.
// mlxbuild's supervisor uses it to find the tree it must stop; the tests and
// the kill -9 campaign use it to find processes that outlived a stop (every
// descendant inherits a marker variable, whoever its parent is now). On a
// system without /proc the lists are empty.
package procscan

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Proc is one process table entry.
type Proc struct {
	PID, PPID int
	State     byte // R, S, D, Z, ...; Z and X are dead
}

// Alive reports whether the process still runs (it is not a zombie).
func (p Proc) Alive() bool { return p.State != 'Z' && p.State != 'X' }

// All reads every process's entry; processes that end while it reads are left out.
func All() []Proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []Proc
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if p, ok := Stat(pid); ok {
			out = append(out, p)
		}
	}
	return out
}

// Stat reads one process's entry from /proc/<pid>/stat.
func Stat(pid int) (Proc, bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return Proc{}, false
	}
	p, ok := ParseStat(data)
	p.PID = pid
	return p, ok
}

// ParseStat reads "pid (comm) S ppid ...": the state and the parent pid
// follow the last ')' (a command name may itself hold parentheses and
// spaces). PID is left for the caller, who knows it.
func ParseStat(data []byte) (Proc, bool) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return Proc{}, false
	}
	fields := bytes.Fields(data[i+1:])
	if len(fields) < 2 || len(fields[0]) != 1 {
		return Proc{}, false
	}
	ppid, err := strconv.Atoi(string(fields[1]))
	if err != nil {
		return Proc{}, false
	}
	return Proc{PPID: ppid, State: fields[0][0]}, true
}

// Marked lists the living processes, other than this one, whose
// environment holds the assignment marker ("NAME=value").
func Marked(marker string) []int {
	var pids []int
	for _, p := range All() {
		if p.PID == os.Getpid() || !p.Alive() {
			continue
		}
		env, err := os.ReadFile("/proc/" + strconv.Itoa(p.PID) + "/environ")
		if err == nil && bytes.Contains(append([]byte{0}, env...), []byte("\x00"+marker+"\x00")) {
			pids = append(pids, p.PID)
		}
	}
	return pids
}

// Describe renders pids with their command lines, for a message.
func Describe(pids []int) string {
	var parts []string
	for _, p := range pids {
		cmd, _ := os.ReadFile("/proc/" + strconv.Itoa(p) + "/cmdline")
		parts = append(parts, strconv.Itoa(p)+" "+strings.TrimSpace(string(bytes.ReplaceAll(cmd, []byte{0}, []byte{' '}))))
	}
	return strings.Join(parts, "; ")
}
