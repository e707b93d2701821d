package proc

import (
	"syscall"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/procscan"
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

// descendants lists the living (not zombie) processes below root.
func descendants(root int) []int {
	children := map[int][]procscan.Proc{}
	for _, p := range procscan.All() {
		children[p.PPID] = append(children[p.PPID], p)
	}
	var out []int
	queue := []int{root}
	seen := map[int]bool{root: true}
	for len(queue) > 0 {
		pid := queue[0]
		queue = queue[1:]
		for _, c := range children[pid] {
			if seen[c.PID] {
				continue
			}
			seen[c.PID] = true
			queue = append(queue, c.PID)
			if c.Alive() {
				out = append(out, c.PID)
			}
		}
	}
	return out
}
