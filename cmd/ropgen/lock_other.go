//go:build !unix

package main

// lockDir is a no-op where flock is not available: commitGenerated still refuses to
// replace a file that changed while it was generated, so a concurrent run is detected.
func lockDir(dir string) (unlock func(), err error) { return func() {}, nil }
