package proc

import (
	"bytes"
	"errors"
	"fmt"
	"strconv"
)

// request is the program a prestarted supervisor is asked to run: it is
// started before the program is known (see prestart_linux.go), so the
// program comes to it over a pipe.
type request struct {
	Dir  string   // working directory; "" keeps the supervisor's
	Argv []string // the resolved program path, then its arguments
	Env  []string // the program's whole environment
}

// maxRequestArgs bounds the argument count a request may declare, so a
// corrupt count cannot make the decoder allocate without end.
const maxRequestArgs = 1 << 20

// encode lays the request out as NUL-terminated strings: the directory,
// the decimal count of argv, argv, then every variable to the end. None of
// them can hold a NUL: the kernel's execve takes C strings.
func (r request) encode() ([]byte, error) {
	var b bytes.Buffer
	put := func(what, s string) error {
		if bytes.IndexByte([]byte(s), 0) >= 0 {
			return fmt.Errorf("starting %s: %s %q holds a NUL byte, which no program can receive", r.program(), what, s)
		}
		b.WriteString(s)
		b.WriteByte(0)
		return nil
	}
	if len(r.Argv) == 0 || r.Argv[0] == "" {
		return nil, errors.New("starting a program: no program path")
	}
	if err := put("working directory", r.Dir); err != nil {
		return nil, err
	}
	_ = put("count", strconv.Itoa(len(r.Argv)))
	for _, a := range r.Argv {
		if err := put("argument", a); err != nil {
			return nil, err
		}
	}
	for _, kv := range r.Env {
		if err := put("environment entry", kv); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

func (r request) program() string {
	if len(r.Argv) == 0 {
		return "a program"
	}
	return r.Argv[0]
}

// decodeRequest reads what encode wrote. Empty data is errNoRequest: the
// supervisor was released unused.
func decodeRequest(data []byte) (request, error) {
	if len(data) == 0 {
		return request{}, errNoRequest
	}
	if data[len(data)-1] != 0 {
		return request{}, fmt.Errorf("supervisor request of %d bytes is cut short (no final NUL)", len(data))
	}
	fields := bytes.Split(data[:len(data)-1], []byte{0})
	if len(fields) < 3 {
		return request{}, fmt.Errorf("supervisor request has %d fields, want a directory, a count and a program", len(fields))
	}
	n, err := strconv.Atoi(string(fields[1]))
	if err != nil || strconv.Itoa(n) != string(fields[1]) || n < 1 || n > maxRequestArgs || n > len(fields)-2 {
		return request{}, fmt.Errorf("supervisor request declares %q arguments, with %d fields after the count", fields[1], len(fields)-2)
	}
	// Env is never nil here: an empty list is an empty environment, not
	// the supervisor's own.
	r := request{Dir: string(fields[0]), Argv: make([]string, n), Env: []string{}}
	for i := range r.Argv {
		r.Argv[i] = string(fields[2+i])
	}
	if r.Argv[0] == "" {
		return request{}, errors.New("supervisor request names an empty program path")
	}
	for _, f := range fields[2+n:] {
		r.Env = append(r.Env, string(f))
	}
	return r, nil
}

// errNoRequest: the request pipe closed with nothing on it.
var errNoRequest = errors.New("no program requested")
