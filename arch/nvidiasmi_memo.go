package arch

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"

	"github.com/mlxbuild/mlxbuild/internal/memo"
)

// nvidia-smi is a process that loads the driver's management library and
// asks every GPU, most of a no-op build:cuda, which probed on every run
// (docs/benchmarks.md, "Figures behind the code"). Its compute_cap answer is a property of which
// GPUs the driver sees and of the driver itself, both of which the driver's
// proc folder shows: a version file and, per GPU, a folder named after its
// bus location whose information file names its model and UUID. So a
// build keeps the answer in its discovery folder (Options.Memo), an
// internal/memo entry keyed by a hash of those files and of nvidia-smi's
// own identity, taken before running it, and uses it while the hash is the
// same. Where the proc folder is missing or unreadable (some containers),
// nvidia-smi runs every time.
const (
	gpuMemoFile = "nvidia-smi.gpus"
	gpuMemoKind = "nvidia-smi-gpus"
	nvidiaProc  = "/proc/driver/nvidia"
)

// nvidiaFingerprint hashes what decides nvidia-smi's compute_cap answer:
// nvidia-smi's path and identity, the driver's version file, and each GPU's
// folder name and information file, in name order. ok is false when any of
// it cannot be read or no GPU is listed: then nothing is remembered.
func nvidiaFingerprint(proc, smi string) (string, bool) {
	id := memo.Of(smi)
	if id.Absent {
		return "", false
	}
	version, err := os.ReadFile(filepath.Join(proc, "version"))
	if err != nil || len(version) == 0 {
		return "", false
	}
	gpus, err := os.ReadDir(filepath.Join(proc, "gpus"))
	if err != nil || len(gpus) == 0 {
		return "", false
	}
	h := sha256.New()
	h.Write([]byte(id.Key() + "\n"))
	h.Write(version)
	for _, g := range gpus { // ReadDir sorts by name
		info, err := os.ReadFile(filepath.Join(proc, "gpus", g.Name(), "information"))
		if err != nil || len(info) == 0 {
			return "", false
		}
		h.Write([]byte("\x00" + g.Name() + "\x00"))
		h.Write(info)
	}
	return hex.EncodeToString(h.Sum(nil)), true
}

// recalledGPUs is the compute_cap rows kept under fingerprint in dir, or
// nil when there are none or they were kept for another fingerprint.
func recalledGPUs(dir, fingerprint string) []string {
	if rows, ok := memo.Get(filepath.Join(dir, gpuMemoFile), gpuMemoKind, gpuMemoKeys(fingerprint), os.Getenv, gpuRows); ok {
		return rows
	}
	return nil
}

// rememberGPUs keeps rows (nvidia-smi's targets, one per GPU row, in its
// row order) under fingerprint in dir, inside a cache root mlxbuild made
// (memo.StoreInCache). A failure costs only the next run an nvidia-smi.
func rememberGPUs(dir, fingerprint string, rows []string) {
	e := memo.Entry{Keys: gpuMemoKeys(fingerprint)}
	for _, r := range rows {
		e.Values = append(e.Values, [2]string{"row", r})
	}
	memo.StoreInCache(dir, gpuMemoFile, gpuMemoKind, e)
}

func gpuMemoKeys(fingerprint string) [][2]string { return [][2]string{{"fingerprint", fingerprint}} }

// gpuRows is the rows an entry's values hold; not ok for none, or for a
// row that is no valid CUDA target.
func gpuRows(values [][2]string) ([]string, bool) {
	rows := make([]string, 0, len(values))
	for _, kv := range values {
		if kv[0] != "row" {
			return nil, false
		}
		rows = append(rows, kv[1])
	}
	ok := len(rows) > 0 && !slices.ContainsFunc(rows, func(r string) bool { return validate(CUDA, r) != nil })
	return rows, ok
}
