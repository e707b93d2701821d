package deps

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/bzip2"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/mlxbuild/mlxbuild/internal/proc"
	"github.com/mlxbuild/mlxbuild/internal/safepath"
)

// checkMembers refuses an archive whose members would be written outside
// the directory it is unpacked in. cmake -E tar (libarchive without its
// secure-extract flags) writes "../x" above it, "/x" where it names, and a
// file through a symbolic link member wherever the link points, so every
// member is checked, links included, before anything is unpacked. A hash
// in the spec proves the archive is the one declared, not that it is safe.
func checkMembers(ctx context.Context, archive string) error {
	entries, err := members(ctx, archive)
	if err != nil {
		return fmt.Errorf("reading the members of %s: %w", archive, err)
	}
	if err := safepath.CheckEntries(entries); err != nil {
		return fmt.Errorf("the archive %s: %w; nothing was unpacked", archive, err)
	}
	return nil
}

// members lists an archive's members, whatever its name says: the format
// is read from its first bytes (a zip, or a tar plain or compressed).
func members(ctx context.Context, archive string) ([]safepath.Entry, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, 6)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	switch {
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return zipMembers(f)
	case bytes.HasPrefix(head, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(bufio.NewReader(f))
		if err != nil {
			return nil, err
		}
		return tarMembers(zr)
	case bytes.HasPrefix(head, []byte("BZh")):
		return tarMembers(bzip2.NewReader(bufio.NewReader(f)))
	case bytes.HasPrefix(head, []byte{0xfd, '7', 'z', 'X', 'Z', 0}):
		return decompressed(ctx, "xz", archive)
	case bytes.HasPrefix(head, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		return decompressed(ctx, "zstd", archive)
	}
	return tarMembers(f)
}

// decompressed lists a tar compressed with xz or zstd, which Go's library
// does not read, through the tool of that name.
func decompressed(ctx context.Context, tool, archive string) ([]safepath.Entry, error) {
	res, err := proc.Run(ctx, proc.Cmd{Path: tool, Args: []string{"-dc", "--", archive}})
	if err != nil {
		return nil, fmt.Errorf("%s -dc: %w; its members are checked before unpacking, which needs %s installed", tool, err, tool)
	}
	return tarMembers(bytes.NewReader(res.Stdout))
}

func tarMembers(r io.Reader) ([]safepath.Entry, error) {
	var out []safepath.Entry
	tr := tar.NewReader(r)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		e := safepath.Entry{Path: h.Name}
		switch h.Typeflag {
		case tar.TypeSymlink:
			e.Symlink, e.Link = true, h.Linkname
		case tar.TypeLink:
			e.Hardlink, e.Link = true, h.Linkname
		case tar.TypeChar, tar.TypeBlock, tar.TypeFifo:
			return nil, &safepath.UnsafeError{Entry: h.Name, Why: "it is a device or a pipe, which a source archive never holds"}
		case tar.TypeXGlobalHeader:
			continue
		}
		out = append(out, e)
	}
}

func zipMembers(f *os.File) ([]safepath.Entry, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	zr, err := zip.NewReader(f, fi.Size())
	if err != nil {
		return nil, err
	}
	var out []safepath.Entry
	for _, zf := range zr.File {
		e := safepath.Entry{Path: zf.Name}
		if zf.Mode()&fs.ModeSymlink != 0 {
			rc, err := zf.Open()
			if err != nil {
				return nil, err
			}
			target, err := io.ReadAll(io.LimitReader(rc, 4096))
			rc.Close()
			if err != nil {
				return nil, err
			}
			e.Symlink, e.Link = true, string(target)
		}
		out = append(out, e)
	}
	return out, nil
}
