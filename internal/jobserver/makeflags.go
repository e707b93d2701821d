package jobserver

import (
	"fmt"
	"strconv"
	"strings"
)

// Auth is where a jobserver's tokens are: the read and write ends of an
// inherited pipe, or a named fifo (GNU make 4.4's fifo:PATH).
type Auth struct {
	R, W int
	Fifo string
}

func (a Auth) String() string {
	if a.Fifo != "" {
		return "fifo:" + a.Fifo
	}
	return fmt.Sprintf("%d,%d", a.R, a.W)
}

// FromMakeflags reads the jobserver of a MAKEFLAGS or CARGO_MAKEFLAGS
// value: its last --jobserver-auth= (GNU make 4.2 and later, Cargo), else
// its last --jobserver-fds= (older make). ok is false when it names none;
// a value that is neither R,W with two file descriptors nor fifo:PATH is an
// error naming it.
func FromMakeflags(flags string) (a Auth, ok bool, err error) {
	var value, option string
	for _, opt := range []string{"--jobserver-fds=", "--jobserver-auth="} {
		for _, f := range strings.Fields(flags) {
			if v, found := strings.CutPrefix(f, opt); found {
				value, option = v, opt
			}
		}
	}
	if option == "" {
		return Auth{}, false, nil
	}
	bad := func(why string) (Auth, bool, error) {
		return Auth{}, true, fmt.Errorf("MAKEFLAGS %s%s: %s; the jobserver is R,W (two file descriptors) or fifo:PATH", option, value, why)
	}
	if p, found := strings.CutPrefix(value, "fifo:"); found {
		if p == "" {
			return bad("the fifo has no path")
		}
		return Auth{R: -1, W: -1, Fifo: p}, true, nil
	}
	rs, ws, found := strings.Cut(value, ",")
	if !found {
		return bad("no comma between the two file descriptors")
	}
	r, rerr := strconv.Atoi(rs)
	w, werr := strconv.Atoi(ws)
	if rerr != nil || werr != nil || r < 0 || w < 0 {
		return bad("a file descriptor is not a number of 0 or more")
	}
	return Auth{R: r, W: w}, true, nil
}
