package proc

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestTerminalIsATTY: with Terminal the program's stdout and stderr are
// one terminal, wide, with "\n" passed as written; everything it printed
// reaches Stdout (and the writer) in order; without, they are pipes.
func TestTerminalIsATTY(t *testing.T) {
	script := `test -t 1 && test -t 2 || exit 9; echo out; echo err >&2; stty size <&1`
	var seen bytes.Buffer
	res, err := Run(context.Background(), Cmd{Path: "sh", Args: []string{"-c", script}, Stdout: &seen, Terminal: true})
	if err != nil {
		t.Fatal(err)
	}
	want := "out\nerr\n24 " + strconv.Itoa(terminalColumns) + "\n"
	if !res.Terminal || string(res.Stdout) != want || len(res.Stderr) != 0 || seen.String() != want {
		t.Errorf("on a terminal: %+v, stdout %q, writer %q; want %q", res, res.Stdout, seen.String(), want)
	}
	res, err = Run(context.Background(), Cmd{Path: "sh", Args: []string{"-c", script}})
	if err == nil || res.ExitCode != 9 || res.Terminal {
		t.Errorf("without Terminal the program saw a terminal: %+v, %v", res, err)
	}
}

// TestTerminalLosesNothingAtTheEnd: output written just before the program
// exits is all read before the master reports the end (EIO on Linux).
func TestTerminalLosesNothingAtTheEnd(t *testing.T) {
	res, err := Run(context.Background(), Cmd{Path: "seq", Args: []string{"1", "200000"}, Terminal: true})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(res.Stdout), "\n"), "\n")
	if len(lines) != 200000 || lines[len(lines)-1] != "200000" {
		t.Errorf("%d lines, the last %q", len(lines), lines[len(lines)-1])
	}
}

// TestTerminalDoesNotHangOrLeak: a grandchild that keeps the terminal
// open after the program exited (as a daemon would) delays Run by at most
// outputDelay; no run leaves a file descriptor open here.
func TestTerminalDoesNotHangOrLeak(t *testing.T) {
	// The first run opens what the process keeps (the poller's descriptors).
	if _, err := Run(context.Background(), Cmd{Path: "true", Terminal: true}); err != nil {
		t.Fatal(err)
	}
	before := openFDs(t)
	for i := 0; i < 5; i++ {
		if _, err := Run(context.Background(), Cmd{Path: "true", Terminal: true}); err != nil {
			t.Fatal(err)
		}
	}
	pidFile := filepath.Join(t.TempDir(), "pid")
	start := time.Now()
	res, err := Run(context.Background(), Cmd{Path: "sh", Args: []string{"-c", "sleep 60 & echo $! > " + pidFile + "; echo left"}, Terminal: true})
	took := time.Since(start)
	if b, rerr := os.ReadFile(pidFile); rerr == nil {
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	if err != nil || string(res.Stdout) != "left\n" {
		t.Errorf("with a daemon holding the terminal: %q, %v", res.Stdout, err)
	}
	if took > outputDelay+3*time.Second {
		t.Errorf("Run took %s with a daemon holding the terminal; the bound is %s", took, outputDelay)
	}
	if after := openFDs(t); after != before {
		t.Errorf("%d file descriptors open before, %d after", before, after)
	}
}

func openFDs(t *testing.T) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(ents)
}

// BenchmarkTerminalRun compares Run of a program that prints one line on a
// pseudo-terminal with the same on pipes. Report the ratio of the ns/op.
//
//	go test -run '^$' -bench TerminalRun -count 5 ./internal/proc
func BenchmarkTerminalRun(b *testing.B) {
	for _, term := range []bool{false, true} {
		name := "pipes"
		if term {
			name = "terminal"
		}
		b.Run(name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				res, err := Run(context.Background(), Cmd{Path: "echo", Args: []string{"one line"}, Terminal: term})
				if err != nil || string(res.Stdout) != "one line\n" || res.Terminal != term {
					b.Fatalf("%+v, %v", res, err)
				}
			}
		})
	}
}
