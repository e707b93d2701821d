package arch

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// errNoComputeCap means nvidia-smi does not know the compute_cap query field
// (drivers older than 510 print `Field "compute_cap" is not a valid field to
// query.`).
var errNoComputeCap = errors.New(`nvidia-smi does not know the compute_cap field (it needs NVIDIA driver 510 or newer)`)

// parseNvidiaSMI reads the output of
// `nvidia-smi --query-gpu=compute_cap --format=csv,noheader`: one "X.Y" row
// per GPU. It returns the CMake architecture of each row, in row order:
// "8.6" is "86", and 90 <= SM < 100 gets the "a" suffix (sm_90a's
// architecture-specific features are what Hopper kernels are built for).
// A "compute_cap" header row is skipped, and so are columns after the
// first (a query of several fields with compute_cap first reads the same);
// anything else that is not X.Y is an error naming the row.
func parseNvidiaSMI(out []byte) ([]string, error) {
	text := string(out)
	if strings.Contains(text, "is not a valid field to query") {
		return nil, errNoComputeCap
	}
	var archs []string
	row := 0
	for _, line := range strings.Split(text, "\n") {
		// A query of several fields puts compute_cap first; keep only it.
		line, _, _ = strings.Cut(line, ",")
		line = strings.TrimSpace(line)
		if line == "" || strings.EqualFold(line, "compute_cap") {
			continue
		}
		a, err := smFromCap(line)
		if err != nil {
			return nil, fmt.Errorf("nvidia-smi row %d: %w", row, err)
		}
		archs = append(archs, a)
		row++
	}
	return archs, nil
}

// smFromCap turns "8.6" into "86" and "9.0" into "90a".
func smFromCap(s string) (string, error) {
	maj, min, ok := strings.Cut(s, ".")
	if !ok {
		return "", fmt.Errorf("%q is not a compute capability (want X.Y)", s)
	}
	M, err1 := strconv.Atoi(maj)
	m, err2 := strconv.Atoi(min)
	if err1 != nil || err2 != nil || M < 1 || M > 99 || m < 0 || m > 9 || len(maj) > 2 || len(min) != 1 {
		return "", fmt.Errorf("%q is not a compute capability (want X.Y)", s)
	}
	sm := M*10 + m
	name := strconv.Itoa(sm)
	if sm >= 90 && sm < 100 {
		name += "a"
	}
	return name, nil
}
