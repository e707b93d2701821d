package gpuidle

import (
	"context"
	"fmt"
	"io"
	"os"
	"time"
)

// Run is gpu:idle: it waits until nothing has used the GPU or compiled for
// quiet, at most maxWait (nil: MLXBUILD_IDLE_MAX, else DefaultMax), reading
// the machine's probes from getenv and writing progress to log.
// Errors that are the user's to fix are of kind fail.Config.
func Run(ctx context.Context, quiet time.Duration, maxWait *time.Duration, getenv func(string) string, log io.Writer) error {
	limit := DefaultMax
	if maxWait != nil {
		limit = *maxWait
	} else {
		var err error
		if limit, err = MaxFromEnv(getenv); err != nil {
			return err
		}
	}
	opts := Options{Quiet: quiet, Max: limit, Poll: DefaultPoll, Log: log}
	if err := opts.Validate(); err != nil {
		return err
	}
	probe, err := ProbeFromEnv(getenv, log)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "waiting until nothing uses the GPU or compiles for %s (at most %s); %s\n", quiet, limit, probe.describe())
	res, err := Wait(ctx, probe, opts)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "idle: nothing used the GPU or compiled for %s (waited %s)\n", quiet, res.Waited.Round(time.Second))
	return nil
}

// describe says what the probe watches, so a user can see that a GPU was
// not silently left out.
func (p *Probe) describe() string {
	s := "KFD: " + p.KFDProc
	if _, err := os.Stat(p.KFDProc); err != nil {
		s += " (absent: no ROCm GPU)"
	}
	if p.NvidiaSmi != "" {
		s += ", CUDA: " + p.NvidiaSmi
	} else {
		s += ", CUDA: no nvidia-smi"
	}
	return s + ", compilers: " + p.procRoot()
}
