package arch

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mlxbuild/mlxbuild/cache"
	"github.com/mlxbuild/mlxbuild/internal/atomicfile"
	"github.com/mlxbuild/mlxbuild/internal/fileid"
)

// nvidia-smi is a process that loads the driver's management library and
// asks every GPU, most of a no-op build:cuda, which probed on every run
// (docs/benchmarks.md, "Figures behind the code"). Its compute_cap answer is a property of which
// GPUs the driver sees and of the driver itself, both of which the driver's
// proc folder shows: a version file and, per GPU, a folder named after its
// bus location whose information file names its model and UUID. So a
// build keeps the answer in its discovery folder (Options.Memo) with a hash
// of those files and of nvidia-smi's own identity, taken before running it,
// and uses it while the hash is the same. Where the proc folder is missing
// or unreadable (some containers), nvidia-smi runs every time.
const (
	gpuMemoFile   = "nvidia-smi.gpus"
	gpuMemoHeader = "mlxbuild nvidia-smi gpus 1"
	nvidiaProc    = "/proc/driver/nvidia"
)

// nvidiaFingerprint hashes what decides nvidia-smi's compute_cap answer:
// nvidia-smi's path and identity, the driver's version file, and each GPU's
// folder name and information file, in name order. ok is false when any of
// it cannot be read or no GPU is listed: then nothing is remembered.
func nvidiaFingerprint(proc, smi string) (string, bool) {
	id := fileid.Of(smi)
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
	data, err := os.ReadFile(filepath.Join(dir, gpuMemoFile))
	if err != nil {
		return nil
	}
	fp, rows, ok := parseGPUMemo(data)
	if !ok || fp != fingerprint {
		return nil
	}
	return rows
}

// rememberGPUs keeps rows (nvidia-smi's targets, one per GPU row) under
// fingerprint in dir, a folder mlxbuild may write into (cache.CheckFolder:
// inside a cache root mlxbuild made, which arch:cuda and doctor must not
// create, never through a planted link). A failure costs only the next run
// an nvidia-smi, so it is not an error.
func rememberGPUs(dir, fingerprint string, rows []string) {
	if cache.CheckFolder(filepath.Dir(dir), dir) != nil {
		return
	}
	if err := os.Mkdir(dir, 0o755); err != nil && !os.IsExist(err) {
		return
	}
	o := atomicfile.Options{Perm: 0o644, What: "GPU memo", NoSync: true, TempPattern: ".tmp-" + gpuMemoFile + "-*"}
	_, _ = o.WriteIfChanged(filepath.Join(dir, gpuMemoFile), formatGPUMemo(fingerprint, rows))
}

// formatGPUMemo writes the header, `key <fingerprint>` and `rows <targets,
// comma-separated in nvidia-smi's row order>`.
func formatGPUMemo(fingerprint string, rows []string) []byte {
	return []byte(gpuMemoHeader + "\nkey " + fingerprint + "\nrows " + strings.Join(rows, ",") + "\n")
}

// parseGPUMemo decodes formatGPUMemo's lines; ok is false for anything
// else, and for rows that are no valid CUDA targets.
func parseGPUMemo(data []byte) (fingerprint string, rows []string, ok bool) {
	lines := strings.Split(string(data), "\n")
	if len(lines) != 4 || lines[0] != gpuMemoHeader || lines[3] != "" {
		return "", nil, false
	}
	fp, found := strings.CutPrefix(lines[1], "key ")
	if b, err := hex.DecodeString(fp); !found || err != nil || len(b) != sha256.Size {
		return "", nil, false
	}
	list, found := strings.CutPrefix(lines[2], "rows ")
	if !found || list == "" {
		return "", nil, false
	}
	rows = strings.Split(list, ",")
	if slices.ContainsFunc(rows, func(r string) bool { return validate(CUDA, r) != nil }) {
		return "", nil, false
	}
	return fp, rows, true
}
