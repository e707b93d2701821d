package compilecache_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/testutil"
)

// exampleDir is the bundled example, relative to this package.
const exampleDir = "../../examples/minimlx"

// redis is a redis-server child process on a loopback port.
type redis struct {
	Port int
	URL  string
	stop context.CancelFunc
	done chan struct{} // closed when the server has exited
	err  error         // how it exited, once done is closed
}

// startRedis starts redis-server on 127.0.0.1 at a free port, with no
// persistence, and waits until it answers PING. It is stopped at the end of
// the test (proc.Run kills its process group when the context ends). Extra
// arguments go to redis-server.
func startRedis(t testing.TB, extra ...string) *redis {
	t.Helper()
	testutil.NeedTools(t, "redis-server")
	var lastErr error
	for attempt := 0; attempt < 3; attempt++ {
		port := freePort(t)
		ctx, cancel := context.WithCancel(context.Background())
		r := &redis{Port: port, URL: "redis://127.0.0.1:" + strconv.Itoa(port), stop: cancel, done: make(chan struct{})}
		go func() {
			_, err := proc.Run(ctx, proc.Cmd{Path: "redis-server", Args: append([]string{
				"--port", strconv.Itoa(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
				"--daemonize", "no", "--dir", t.TempDir(),
			}, extra...)})
			r.err = err
			close(r.done)
		}()
		if lastErr = waitPong(r, 5*time.Second); lastErr == nil {
			t.Cleanup(r.Stop)
			return r
		}
		cancel()
	}
	t.Fatalf("redis-server did not start: %v", lastErr)
	return nil
}

// Stop kills the server and waits for it to be gone; stopping twice is fine.
func (r *redis) Stop() {
	r.stop()
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
	}
}

func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// waitPong polls the port with a RESP PING until +PONG (or -NOAUTH from a
// server that wants a password), the server exits or the time is up.
func waitPong(r *redis, within time.Duration) error {
	deadline := time.Now().Add(within)
	for time.Now().Before(deadline) {
		select {
		case <-r.done:
			return fmt.Errorf("redis-server exited: %v", r.err)
		default:
		}
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(r.Port), time.Second); err == nil {
			c.SetDeadline(time.Now().Add(time.Second))
			fmt.Fprint(c, "*1\r\n$4\r\nPING\r\n")
			line, _ := bufio.NewReader(c).ReadString('\n')
			c.Close()
			if strings.HasPrefix(line, "+PONG") || strings.HasPrefix(line, "-NOAUTH") {
				return nil
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no PONG on port %d within %s", r.Port, within)
}
