package output

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

func write(t *testing.T, path, data string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), mode); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// entries lists dir, to catch a temporary file left behind.
func entries(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return strings.Join(names, " ")
}

func TestWriteFileReplacesAndKeepsMode(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "out.txt")
	if err := WriteFile(dest, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(dest); st.Mode().Perm() != 0o644 {
		t.Errorf("new file mode %v, want 0644", st.Mode().Perm())
	}
	if err := os.Chmod(dest, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(dest, []byte("two")); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(dest)
	if got := read(t, dest); got != "two" || st.Mode().Perm() != 0o600 {
		t.Errorf("content %q mode %v, want two and the old mode 0600", got, st.Mode().Perm())
	}
	if got := entries(t, dir); got != "out.txt" {
		t.Errorf("directory holds %s", got)
	}
}

// TestRefusals: an input by another name, a directory, a symlink to a regular file and a
// read-only file are each refused, and left as they were.
func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "r.txt")
	write(t, in, "records", 0o644)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(in, link); err != nil {
		t.Fatal(err)
	}
	ro := filepath.Join(dir, "ro.txt")
	write(t, ro, "keep", 0o444)
	for _, tc := range []struct {
		dest   string
		inputs []string
		want   string
	}{
		{in, []string{in}, "is also an input"},
		{in, []string{"other.txt", dir + "/./r.txt"}, "it is the input"},
		{dir, nil, "is a directory"},
		{link, nil, "symbolic link"},
		{ro, nil, "read-only"},
	} {
		err := WriteFile(tc.dest, []byte("new"), tc.inputs...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("WriteFile(%s, inputs %q) = %v, want %q", tc.dest, tc.inputs, err, tc.want)
		}
	}
	if read(t, in) != "records" || read(t, ro) != "keep" {
		t.Error("a refused destination was changed")
	}
	if got := entries(t, dir); got != "link.txt r.txt ro.txt" {
		t.Errorf("directory holds %s", got)
	}
}

// TestStreams: a character device (/dev/null), a pipe reached through a link as
// /dev/stdout is (/proc/self/fd/N), a named pipe and a link to /dev/null are written in
// place, as `-o /dev/null` asks; nothing is renamed over them and no temporary file is left.
func TestStreams(t *testing.T) {
	if _, err := os.Stat(os.DevNull); err != nil || runtime.GOOS == "windows" {
		t.Skip("no /dev/null here")
	}
	dir := t.TempDir()
	null := filepath.Join(dir, "null")
	if err := os.Symlink(os.DevNull, null); err != nil {
		t.Fatal(err)
	}
	for _, dest := range []string{os.DevNull, null} {
		if err := WriteFile(dest, []byte("gone"), filepath.Join(dir, "in.txt")); err != nil {
			t.Errorf("WriteFile(%s): %v", dest, err)
		}
	}
	if st, err := os.Lstat(null); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link to /dev/null was replaced: %v %v", st.Mode(), err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a character device: %v %v", st.Mode(), err)
	}

	// A pipe through a link, as /dev/stdout is when a command's output is piped on.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	link := fmt.Sprintf("/proc/self/fd/%d", w.Fd())
	if _, err := os.Stat(link); err != nil {
		t.Skip("no /proc/self/fd here")
	}
	got := make(chan string, 1)
	go func() { b, _ := io.ReadAll(r); got <- string(b) }()
	if err := WriteFile(link, []byte("records\n")); err != nil {
		t.Errorf("WriteFile(%s, a pipe): %v", link, err)
	}
	w.Close()
	if s := <-got; s != "records\n" {
		t.Errorf("the pipe read %q, want the records", s)
	}

	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	// With no reader, refused at once: a blocking open would wait for ever.
	if err := WriteFile(fifo, []byte("x")); err == nil || !strings.Contains(err.Error(), "no process reads") {
		t.Errorf("WriteFile(a FIFO no process reads) = %v, want a refusal", err)
	}
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	// The reader's open waits for a writer, and a writer is refused until the reader's
	// open is under way: try until it is.
	var f *File
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		if f, err = Create(fifo); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal(err)
		}
	}
	f.Write([]byte("a"))
	f.Write([]byte("b"))
	if err := f.Commit(); err != nil {
		t.Error(err)
	}
	if s := <-got; s != "ab" {
		t.Errorf("the FIFO read %q, want ab", s)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st.Mode(), err)
	}
	if got := entries(t, dir); got != "fifo null" {
		t.Errorf("directory holds %s", got)
	}
}

// TestAbortKeepsOld: a write given up leaves the old file and no temporary file.
func TestAbortKeepsOld(t *testing.T) {
	dir := t.TempDir()
	dest := filepath.Join(dir, "out.txt")
	write(t, dest, "old", 0o644)
	f, err := Create(dest)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("half"))
	if got := read(t, dest); got != "old" {
		t.Errorf("before commit the destination reads %q", got)
	}
	f.Abort()
	f.Abort()
	if err := f.Commit(); err == nil {
		t.Error("Commit after Abort succeeded")
	}
	if got := read(t, dest); got != "old" || entries(t, dir) != "out.txt" {
		t.Errorf("after abort: %q, directory %s", got, entries(t, dir))
	}
}

// TestSignalRemovesTemp: a process killed by SIGTERM between Create and Commit leaves the
// old file and no temporary file behind.
func TestSignalRemovesTemp(t *testing.T) {
	if dest := os.Getenv("OUTPUT_TEST_HELPER"); dest != "" {
		f, err := Create(dest)
		if err != nil {
			os.Exit(3)
		}
		f.Write([]byte("half"))
		os.Stdout.WriteString("ready\n")
		select {}
	}
	dir := t.TempDir()
	dest := filepath.Join(dir, "out.txt")
	write(t, dest, "old", 0o644)
	cmd := exec.Command(os.Args[0], "-test.run=^TestSignalRemovesTemp$")
	cmd.Env = append(os.Environ(), "OUTPUT_TEST_HELPER="+dest)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if line != "ready\n" {
		cmd.Process.Kill()
		t.Fatalf("helper said %q", line)
	}
	if n := strings.Count(entries(t, dir), ".tmp"); n != 1 {
		t.Errorf("%d temporary files while writing, want 1", n)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	err = cmd.Wait()
	ee, ok := err.(*exec.ExitError)
	if !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGTERM {
		t.Errorf("helper ended with %v, want killed by SIGTERM", err)
	}
	if got := read(t, dest); got != "old" || entries(t, dir) != "out.txt" {
		t.Errorf("after SIGTERM: %q, directory %s", got, entries(t, dir))
	}
}

// TestCreatesFolder checks that a destination in a folder that does not exist yet is
// written, the folders made.
func TestCreatesFolder(t *testing.T) {
	dest := filepath.Join(t.TempDir(), "out", "charts", "r.svg")
	if err := WriteFile(dest, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if got := read(t, dest); got != "x" {
		t.Errorf("wrote %q", got)
	}
}

// TestIgnoredSignalChangesNothing: a process started with SIGHUP and SIGINT ignored (nohup,
// a background job of a script) hung for good when one came while an output was pending:
// the watcher removed the temporary file, restored the ignored disposition, re-sent the
// signal (ignored again) and kept the lock that Commit waits for. Such a signal now changes
// nothing: the write goes on and commits.
func TestIgnoredSignalChangesNothing(t *testing.T) {
	if dest := os.Getenv("OUTPUT_TEST_IGNORED"); dest != "" {
		f, err := Create(dest)
		if err != nil {
			os.Exit(3)
		}
		f.Write([]byte("whole"))
		os.Stdout.WriteString("ready\n")
		bufio.NewReader(os.Stdin).ReadString('\n')
		if err := f.Commit(); err != nil {
			os.Stdout.WriteString(err.Error())
			os.Exit(4)
		}
		os.Exit(0)
	}
	if _, err := exec.LookPath("sh"); err != nil {
		t.Skip("no sh to start a process with signals ignored")
	}
	dir := t.TempDir()
	dest := filepath.Join(dir, "out.txt")
	write(t, dest, "old", 0o644)
	cmd := exec.Command("sh", "-c", `trap "" HUP INT; exec "$0" "$@"`, os.Args[0], "-test.run=^TestIgnoredSignalChangesNothing$")
	cmd.Env = append(os.Environ(), "OUTPUT_TEST_IGNORED="+dest)
	stdin, _ := cmd.StdinPipe()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(stdout)
	if line, _ := out.ReadString('\n'); line != "ready\n" {
		cmd.Process.Kill()
		t.Fatalf("helper said %q", line)
	}
	cmd.Process.Signal(syscall.SIGHUP)
	cmd.Process.Signal(syscall.SIGINT)
	time.Sleep(300 * time.Millisecond) // time for a watcher to take the signals
	stdin.Write([]byte("commit\n"))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			rest, _ := io.ReadAll(out)
			t.Errorf("helper ended with %v: %s", err, rest)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatal("the helper hangs after an ignored SIGHUP")
	}
	if got := read(t, dest); got != "whole" || entries(t, dir) != "out.txt" {
		t.Errorf("after an ignored SIGHUP: %q, directory %s", got, entries(t, dir))
	}
}
