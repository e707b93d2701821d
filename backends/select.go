package backends

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/mlxbuild/mlxbuild/configs"
	"github.com/mlxbuild/mlxbuild/internal/fail"
)

// request is one backend asked for, and by whom.
type request struct {
	backend string
	from    string // "target build:rocm", "MLXBUILD_BACKENDS", "CARGO_FEATURE_ROCM"
}

// Backend is the backend asked for.
func (r request) Backend() string { return r.backend }

// From says who asked: "target build:rocm", "MLXBUILD_BACKENDS",
// "CARGO_FEATURE_ROCM".
func (r request) From() string { return r.from }

// Requests gathers what the caller asked for: the target's own backend
// (may be ""), MLXBUILD_BACKENDS (a comma list) and, under a Cargo build
// script, the CARGO_FEATURE_<NAME> variables.
func Requests(target, targetBackend string, env func(string) string) []request {
	var rs []request
	if targetBackend != "" {
		rs = append(rs, request{targetBackend, "target " + target})
	}
	for _, b := range strings.Split(env("MLXBUILD_BACKENDS"), ",") {
		if b = strings.TrimSpace(b); b != "" {
			rs = append(rs, request{strings.ToLower(b), "MLXBUILD_BACKENDS"})
		}
	}
	for _, n := range Names() {
		v := "CARGO_FEATURE_" + strings.ToUpper(n)
		if env(v) != "" {
			rs = append(rs, request{n, v})
		}
	}
	return rs
}

// Select picks the one backend to build from the requests. cpu is the base
// of every backend, so it yields to a GPU request; two GPU backends, or a
// pair a spec declares in conflict, are an error that names both; a
// backend off its platforms is an error too. No request means cpu.
func Select(reqs []request, goos string, spec func(string) (*configs.Spec, error)) (string, error) {
	byName := map[string][]string{}
	var order []string
	for _, r := range reqs {
		if Lookup(r.backend) == nil {
			err := configs.UnknownBackend(r.backend)
			return "", fail.Configf("%v (requested by %s)", err, r.from)
		}
		if _, ok := byName[r.backend]; !ok {
			order = append(order, r.backend)
		}
		byName[r.backend] = append(byName[r.backend], r.from)
	}
	var gpu []string
	for _, b := range order {
		if b != "cpu" {
			gpu = append(gpu, b)
		}
	}
	chosen := "cpu"
	switch len(gpu) {
	case 0:
	case 1:
		chosen = gpu[0]
	default:
		a, b := gpu[0], gpu[1]
		why := "GPU backends are mutually exclusive: MLX links exactly one"
		if s, err := spec(a); err == nil && slices.Contains(s.Conflicts, b) {
			why = fmt.Sprintf("the %s spec declares it conflicts with %s (MLX links exactly one GPU backend)", a, b)
		}
		return "", fail.Configf("cannot build %s (requested by %s) together with %s (requested by %s): %s; request one of them",
			a, strings.Join(byName[a], ", "), b, strings.Join(byName[b], ", "), why)
	}
	s, err := spec(chosen)
	if err != nil {
		return "", err
	}
	if !slices.Contains(s.Platforms, goos) {
		plats := append([]string(nil), s.Platforms...)
		sort.Strings(plats)
		return "", fail.Configf("backend %s builds only on %s, and this machine is %s; build cpu here or build %s on a %s machine",
			chosen, strings.Join(plats, " or "), goos, chosen, plats[0])
	}
	return chosen, nil
}
