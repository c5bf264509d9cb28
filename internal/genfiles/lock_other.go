//go:build !unix

package genfiles

// Lock is a no-op where flock is not available: Sync still refuses to
// replace a file that changed while it was generated, so a concurrent run is detected.
func Lock(dir string) (unlock func(), err error) { return func() {}, nil }
