package overlays

import "github.com/mlxbuild/mlxbuild/internal/fileid"

// ManifestAhead is a tree's manifest read before the caller holds the
// backend's lock, while it does the rest of its start (the cache checks and
// the lock itself), so that reading it is off the no-op's critical path.
// Materialize uses it only if the manifest file still has, under the lock,
// the identity it had before and after it was read (path, size, mtime,
// ctime, inode: a run that rewrites it renames a new file over it, and an
// edit in place moves its ctime); else it reads the file again. So what
// Materialize decides is what it would decide reading it under the lock.
type ManifestAhead struct {
	path string
	done chan struct{}
	m    *Manifest
	id   fileid.ID // the file's identity while it was read; Path "" if it changed meanwhile
}

// ReadManifestAhead starts reading the manifest at path.
func ReadManifestAhead(path string) *ManifestAhead {
	a := &ManifestAhead{path: path, done: make(chan struct{})}
	go func() {
		defer close(a.done)
		before := fileid.Of(path)
		a.m = readManifest(path)
		if fileid.Of(path) == before {
			a.id = before
		}
	}()
	return a
}

// manifest is the manifest at path, as read ahead when a was started for
// path and the file has not changed since, else read now.
func (a *ManifestAhead) manifest(path string) *Manifest {
	if a != nil && a.path == path {
		<-a.done
		if a.id.Path != "" && fileid.Of(path) == a.id {
			return a.m
		}
	}
	return readManifest(path)
}
