//go:build unix

package genfiles

import (
	"fmt"
	"os"
	"syscall"
)

// Lock takes an exclusive advisory lock (flock) on the directory dir itself, waiting for
// another holder to release it: no lock file is created, so none can be left behind, and
// the kernel releases the lock when the process ends, however it ends.
func Lock(dir string) (unlock func(), err error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %v", dir, err)
	}
	return func() {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		f.Close()
	}, nil
}
