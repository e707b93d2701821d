package proc

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
	"time"
)

// killTree sends SIGKILL to every living descendant of root, again and
// again until none is left (a process may fork between a scan and the
// kill; its child is then found by the next scan) or bound has passed.
func killTree(root int, bound time.Duration) {
	deadline := time.Now().Add(bound)
	for {
		pids := descendants(root)
		if len(pids) == 0 || time.Now().After(deadline) {
			return
		}
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// descendants lists the living (not zombie) processes below root, read
// from /proc/<pid>/stat: the parent pid is the second field after the
// command name, whose closing parenthesis is the last one on the line.
func descendants(root int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	alive := map[int]bool{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, state, ok := readStat(pid)
		if !ok {
			continue
		}
		children[ppid] = append(children[ppid], pid)
		alive[pid] = state != 'Z' && state != 'X'
	}
	var out []int
	queue := []int{root}
	seen := map[int]bool{root: true}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			if seen[c] {
				continue
			}
			seen[c] = true
			queue = append(queue, c)
			if alive[c] {
				out = append(out, c)
			}
		}
	}
	return out
}

// readStat reads a process's parent pid and state from /proc/<pid>/stat.
func readStat(pid int) (ppid int, state byte, ok bool) {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	return parseStat(data)
}

// parseStat reads "pid (comm) S ppid ...": the state and parent pid follow
// the last ')' (a command name may itself hold parentheses and spaces).
func parseStat(data []byte) (ppid int, state byte, ok bool) {
	i := bytes.LastIndexByte(data, ')')
	if i < 0 {
		return 0, 0, false
	}
	fields := bytes.Fields(data[i+1:])
	if len(fields) < 2 || len(fields[0]) != 1 {
		return 0, 0, false
	}
	ppid, err := strconv.Atoi(string(fields[1]))
	if err != nil {
		return 0, 0, false
	}
	return ppid, fields[0][0], true
}
