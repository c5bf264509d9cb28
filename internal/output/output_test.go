package output

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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

// TestRefusals: an input by another name, a directory, a FIFO, a symlink and a read-only
// file are each refused, and left as they were.
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
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	for _, tc := range []struct {
		dest   string
		inputs []string
		want   string
	}{
		{in, []string{in}, "is also an input"},
		{in, []string{"other.txt", dir + "/./r.txt"}, "it is the input"},
		{dir, nil, "is a directory"},
		{fifo, nil, "not a regular file"},
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
	if got := entries(t, dir); got != "fifo link.txt r.txt ro.txt" {
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
