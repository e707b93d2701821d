package memo

import (
	"os"
	"unsafe"
)

// ReadString is a file's content as a string without a second copy
// (os.ReadFile and a conversion would copy it again): the bytes read are
// never written after, so the string may use them, as strings.Builder
// does with its own.
func ReadString(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil || len(data) == 0 {
		return "", err
	}
	return unsafe.String(unsafe.SliceData(data), len(data)), nil
}
