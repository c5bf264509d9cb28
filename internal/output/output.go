// Package output writes the files a command produces, by one rule for the whole module: an
// output is written to a temporary file beside its destination and renamed over it only
// when complete (fsync first), so a reader, a crash or an interrupted run never sees half a
// file and an old file survives a run that does not finish; and no output may be one of
// the command's inputs, so `report -svg r.txt r.txt` cannot replace the records it read.
//
// The destination must be absent, a writable regular file, or a stream: a character device
// (/dev/null, a terminal) or a pipe, named or reached through a link such as /dev/stdout.
// A stream is written in place as the bytes come, since there is no file to rename over and
// nothing a reader could find half written. A directory, a block device, a socket, a
// symbolic link to a regular file or a read-only file is refused before anything is
// written, since renaming over it would replace it with a regular file. An existing file
// keeps its mode.
// A temporary file is removed when the write fails, when it is aborted, and when the
// process receives SIGINT, SIGTERM or SIGHUP before it is committed, unless the process was
// started with that signal ignored (nohup): then the signal changes nothing.
package output

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"time"
)

// File is an output being written: a temporary file that Commit renames over the
// destination. It is an io.Writer.
type File struct {
	dest string
	mode fs.FileMode
	tmp  *os.File
	// stream is the destination itself when it is a stream (a character device or a
	// pipe): written in place, with nothing to rename.
	stream *os.File
	done   bool
}

// Check reports why dest cannot be an output of a command that reads inputs: it is one of
// them (the same file, by any name), or it exists and is neither a writable regular file
// nor a stream.
func Check(dest string, inputs ...string) error {
	_, _, err := check(dest, inputs)
	return err
}

// isStream reports whether a file of mode m is written in place: a character device or a
// pipe has no content to keep and cannot be renamed over (a rename would put a regular
// file in its place).
func isStream(m fs.FileMode) bool {
	return m&fs.ModeCharDevice != 0 || m&fs.ModeNamedPipe != 0
}

// check returns the mode the output gets (the existing file's, or 0644) and whether dest
// is a stream, written in place.
func check(dest string, inputs []string) (fs.FileMode, bool, error) {
	st, err := os.Lstat(dest)
	if err == nil && st.Mode()&fs.ModeSymlink != 0 {
		// A link to a stream (/dev/stdout to a terminal or a pipe) is written through:
		// nothing is renamed. A link to anything else is refused below.
		if tst, terr := os.Stat(dest); terr == nil && isStream(tst.Mode()) {
			st = tst
		}
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return 0o644, false, nil
	case err != nil:
		return 0, false, err
	case isStream(st.Mode()):
		// An input that is the same stream (-o /dev/stdin on a terminal) is no file the
		// output could replace: the check below is for files.
		return 0, true, nil
	case st.Mode()&fs.ModeSymlink != 0:
		return 0, false, fmt.Errorf("refusing to write %s: it is a symbolic link (give the file it points to)", dest)
	case st.IsDir():
		return 0, false, fmt.Errorf("refusing to write %s: it is a directory", dest)
	case !st.Mode().IsRegular():
		return 0, false, fmt.Errorf("refusing to write %s: it is neither a regular file nor a character device or pipe (%s)", dest, st.Mode().Type())
	case st.Mode().Perm()&0o200 == 0:
		return 0, false, fmt.Errorf("refusing to write %s: it is read-only", dest)
	}
	for _, in := range inputs {
		if ist, err := os.Stat(in); err == nil && os.SameFile(st, ist) {
			if in == dest {
				return 0, false, fmt.Errorf("refusing to write %s: it is also an input of this command", dest)
			}
			return 0, false, fmt.Errorf("refusing to write %s: it is the input %s", dest, in)
		}
	}
	return st.Mode().Perm(), false, nil
}

// Create checks dest against inputs (see Check) and starts writing it. Nothing exists at
// dest until Commit; call Abort (or defer it: it is a no-op after Commit) when giving up.
func Create(dest string, inputs ...string) (*File, error) {
	mode, stream, err := check(dest, inputs)
	if err != nil {
		return nil, err
	}
	if stream {
		return openStream(dest)
	}
	// A missing folder is made, as go build -o makes one: `-o out/report.txt` on a fresh
	// clone is what a user types first.
	if err := os.MkdirAll(filepath.Dir(dest), 0o777); err != nil {
		return nil, fmt.Errorf("writing %s: %w", dest, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(dest), "."+filepath.Base(dest)+".tmp*")
	if err != nil {
		return nil, fmt.Errorf("writing %s: %w", dest, err)
	}
	pending.add(tmp.Name())
	return &File{dest: dest, mode: mode, tmp: tmp}, nil
}

// openStream opens a stream for writing: O_WRONLY alone, so a device or pipe is neither
// created nor truncated. A named pipe is opened without blocking: with no reader the open
// fails at once (ENXIO), where a blocking open would wait for one for ever, before the
// command has done anything.
func openStream(dest string) (*File, error) {
	flag := os.O_WRONLY
	if st, err := os.Stat(dest); err == nil && st.Mode()&fs.ModeNamedPipe != 0 {
		flag |= syscall.O_NONBLOCK
	}
	f, err := os.OpenFile(dest, flag, 0)
	switch {
	case errors.Is(err, syscall.ENXIO):
		return nil, fmt.Errorf("refusing to write %s: it is a pipe that no process reads", dest)
	case err != nil:
		return nil, fmt.Errorf("writing %s: %w", dest, err)
	}
	return &File{dest: dest, stream: f}, nil
}

// Name is the destination.
func (f *File) Name() string { return f.dest }

// Write writes to the temporary file, or to the stream.
func (f *File) Write(p []byte) (int, error) {
	if f.stream != nil {
		return f.stream.Write(p)
	}
	return f.tmp.Write(p)
}

// Commit makes the output whole and puts it in place: mode, fsync, close, rename. On an
// error the temporary file is removed and the destination is as it was. A stream is only
// closed: what was written has gone on already (and fsync fails on a pipe).
func (f *File) Commit() error {
	if f.done {
		return errors.New("output: " + f.dest + " committed or aborted already")
	}
	f.done = true
	if f.stream != nil {
		return f.stream.Close()
	}
	name := f.tmp.Name()
	defer pending.remove(name)
	err := f.tmp.Chmod(f.mode)
	if err == nil {
		err = f.tmp.Sync()
	}
	if cerr := f.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(name, f.dest)
	}
	if err != nil {
		os.Remove(name)
	}
	return err
}

// Abort removes the temporary file, leaving the destination as it was. It does nothing
// after Commit. A stream is closed: what was written to it cannot be taken back.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	if f.stream != nil {
		f.stream.Close()
		return
	}
	f.tmp.Close()
	os.Remove(f.tmp.Name())
	pending.remove(f.tmp.Name())
}

// WriteFile writes data to dest atomically, refusing a dest that is one of inputs.
func WriteFile(dest string, data []byte, inputs ...string) error {
	f, err := Create(dest, inputs...)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// pending are the temporary files not yet committed or aborted: a signal that ends the
// process removes them first, so an interrupted command leaves no litter.
var pending = &tempFiles{names: map[string]bool{}}

type tempFiles struct {
	mu    sync.Mutex
	names map[string]bool
	once  sync.Once
}

func (t *tempFiles) add(name string) {
	t.once.Do(t.watch)
	t.mu.Lock()
	t.names[name] = true
	t.mu.Unlock()
}

func (t *tempFiles) remove(name string) {
	t.mu.Lock()
	delete(t.names, name)
	t.mu.Unlock()
}

// watch removes the pending files on SIGINT, SIGTERM or SIGHUP, then lets the signal take
// its default course (the process ends with the status that signal gives). A signal the
// process was started with ignored (nohup's SIGHUP, SIGINT of a background job of a
// non-interactive shell) is left ignored: it does not end the process, so it must not
// remove the files of a write that goes on, and re-sent after signal.Reset it would be
// ignored again while the watcher holds the lock every Commit waits for.
func (t *tempFiles) watch() {
	var sigs []os.Signal
	for _, sig := range []os.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP} {
		if !signal.Ignored(sig) {
			sigs = append(sigs, sig)
		}
	}
	if len(sigs) == 0 {
		return
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sigs...)
	go func() {
		sig := <-ch
		t.mu.Lock()
		for name := range t.names {
			os.Remove(name)
		}
		signal.Reset(sigs...)
		if self, err := os.FindProcess(os.Getpid()); err == nil {
			self.Signal(sig)
		}
		// Held: no new temporary file may appear while the signal is delivered. Should the
		// signal not end the process after all, it ends here, as the shell reports a
		// process a signal ended: never a process that hangs on the lock.
		time.Sleep(time.Second)
		os.Exit(128 + int(sig.(syscall.Signal)))
	}()
}
