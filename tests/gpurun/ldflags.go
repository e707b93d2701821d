package gpurun

import (
	"fmt"
	"os"
	"strings"
)

// ReadLdflags reads a link plan's ldflags.txt and splits it into linker
// arguments, as a consumer's build passes them to the compiler driver. The
// plan writes them space separated on one line, so a path with a space in it
// cannot be carried by that file (link.json can).
func ReadLdflags(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the link plan: %w; run build:<backend> first", err)
	}
	args := strings.Fields(string(data))
	if len(args) == 0 {
		return nil, fmt.Errorf("%s is empty: the link plan names no library; run build:<backend> again", path)
	}
	return args, nil
}
