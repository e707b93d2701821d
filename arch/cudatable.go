package arch

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
)

// cudaChip is what mlxbuild knows about one CUDA compute capability.
type cudaChip struct {
	parts string // the products, e.g. "GB10 (DGX Spark)"
	// RenamedTo is the number a later CUDA gives the same chip: CUDA 13
	// calls 10.1 (Thor) 11.0 and no longer lists sm_101.
	RenamedTo string
}

// Where the suffixed forms start: the a (architecture-specific, this
// chip only) forms with sm_90a (CUDA 12.0), the f (family, CUDA 12.9+)
// forms with sm_100f. No earlier chip has either.
const (
	firstArchSpecific = 90
	firstFamily       = 100
)

// cudaChips lists the compute capabilities of NVIDIA's CUDA GPUs page
// and the nvcc references of CUDA 12.9 and 13.0, the 10.x/12.x
// Blackwell parts and aarch64 hosts (GH200, GB10, Thor) included.
var cudaChips = map[int]cudaChip{
	35: {parts: "Kepler (K40)"}, 37: {parts: "Kepler (K80)"},
	50: {parts: "Maxwell"}, 52: {parts: "Maxwell (GTX 9xx, M40)"}, 53: {parts: "Maxwell (Jetson Nano)"},
	60: {parts: "Pascal (P100)"}, 61: {parts: "Pascal (GTX 10xx, P40)"}, 62: {parts: "Pascal (Jetson TX2)"},
	70: {parts: "Volta (V100)"}, 72: {parts: "Volta (Jetson Xavier)"},
	75: {parts: "Turing (RTX 20xx, T4)"},
	80: {parts: "Ampere (A100)"}, 86: {parts: "Ampere (RTX 30xx, A40, A10)"}, 87: {parts: "Ampere (Jetson Orin)"},
	88:  {parts: "new in CUDA 13.0's lists"},
	89:  {parts: "Ada (RTX 40xx, L4, L40)"},
	90:  {parts: "Hopper (H100, H200, GH200)"},
	100: {parts: "Blackwell (B200, GB200)"},
	101: {parts: "Blackwell (Thor, CUDA 12.8-12.9)", RenamedTo: "110"},
	103: {parts: "Blackwell Ultra (B300, GB300)"},
	110: {parts: "Blackwell (Thor, CUDA 13)"},
	120: {parts: "Blackwell (RTX 50xx, RTX PRO 6000)"},
	121: {parts: "Blackwell (GB10, DGX Spark)"},
}

// LookupCUDA returns the table entry for a CUDA architecture as CMake
// takes it (121, 121a-real, 100f-virtual): its number decides.
func LookupCUDA(target string) (cudaChip, bool) {
	n, err := strconv.Atoi(cudaNumber(target))
	if err != nil {
		return cudaChip{}, false
	}
	c, ok := cudaChips[n]
	return c, ok
}

// cudaNumber is a target's leading digits: "121" of "121a-real".
func cudaNumber(target string) string {
	end := 0
	for end < len(target) && target[end] >= '0' && target[end] <= '9' {
		end++
	}
	return target[:end]
}

// newestCUDA is the highest number the table holds: a well-formed
// number above it is a chip newer than the table, left to the toolkit's
// own list to judge, not a typo.
func newestCUDA() int {
	newest := 0
	for n := range cudaChips {
		newest = max(newest, n)
	}
	return newest
}

// nearestCUDA returns up to n numbers of the table closest to target's,
// lower first on a tie, for "did you mean".
func nearestCUDA(number, n int) []string {
	nums := make([]int, 0, len(cudaChips))
	for k := range cudaChips {
		nums = append(nums, k)
	}
	dist := func(v int) int { return max(v-number, number-v) }
	slices.SortFunc(nums, func(a, b int) int { return cmp.Or(cmp.Compare(dist(a), dist(b)), cmp.Compare(a, b)) })
	var out []string
	for _, v := range nums[:min(n, len(nums))] {
		out = append(out, strconv.Itoa(v))
	}
	return out
}

// cudaSuffixProblem says what is wrong with a well-formed target's a or
// f suffix for its number, or "" when nothing is.
func cudaSuffixProblem(number int, suffix string) string {
	switch {
	case suffix == "a" && number < firstArchSpecific:
		return "sm_" + strconv.Itoa(number) + " has no architecture-specific (a) form: those start with 90a"
	case suffix == "f" && number < firstFamily:
		return "sm_" + strconv.Itoa(number) + " has no family (f) form: those start with 100f (CUDA 12.9+)"
	}
	return ""
}

// cudaDotted reads a compute capability written the way nvidia-smi
// prints it ("12.1", "9.0a") and returns the CMake spelling ("121",
// "90a"), for the error that suggests it; ok is false for anything else.
func cudaDotted(name string) (string, bool) {
	maj, rest, ok := strings.Cut(name, ".")
	if !ok || maj == "" || rest == "" || rest[0] < '0' || rest[0] > '9' {
		return "", false
	}
	if _, err := strconv.Atoi(maj); err != nil {
		return "", false
	}
	fixed := maj + rest
	if !cudaRe.MatchString(fixed) {
		return "", false
	}
	return fixed, true
}
