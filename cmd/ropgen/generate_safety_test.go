package main

import (
	"bytes"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ropgen/ropgen/gen"
	"github.com/ropgen/ropgen/internal/genfiles"
)

// File safety of ropgen generate (issue 11 item 4): one file (no pair to tear), the mode
// kept, a symbolic link or read-only file refused, concurrent runs serialized or detected,
// no temporary file after SIGTERM, SIGHUP or SIGINT.

// generatedModule is generateModule after one successful generation; it returns the module
// directory and the generated file's path.
func generatedModule(t *testing.T) (dir, file string) {
	t.Helper()
	dir = generateModule(t)
	if code, _, stderr := runGenerateIn(t, dir); code != 0 {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
	return dir, filepath.Join(dir, "ops", gen.File)
}

// makeStale appends a comment to the generated file, so that the next run rewrites it.
func makeStale(t *testing.T, file string) []byte {
	t.Helper()
	old, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	stale := append(old, "// stale\n"...)
	if err := os.WriteFile(file, stale, 0o644); err != nil {
		t.Fatal(err)
	}
	return stale
}

// noTemps fails when a temporary file of the generator is left in dir.
func noTemps(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}

func TestGenerateWritesOneFileAndRemovesTheLegacyPair(t *testing.T) {
	dir := generateModule(t)
	legacy := filepath.Join(dir, "ops", gen.LegacyHelpersFile)
	// What an earlier version left: the runtime in a second generated file.
	if err := os.WriteFile(legacy, []byte(gen.Header+"\npackage ops\n\nfunc rooflineFlag(b bool) int { return 0 }\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stdout, _ := runGenerateIn(t, dir, "-check"); code != 1 || !strings.Contains(stdout, "--- "+legacy) {
		t.Errorf("-check with a legacy helpers file: exit %d; want 1 and a diff removing it:\n%s", code, stdout)
	}
	if code, _, stderr := runGenerateIn(t, dir); code != 0 {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
	if _, err := os.Stat(legacy); err == nil {
		t.Error("the legacy helpers file is still there: with the one file it redeclares the runtime")
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "ops"))
	var generated []string
	for _, e := range entries {
		if b, err := os.ReadFile(filepath.Join(dir, "ops", e.Name())); err == nil && bytes.HasPrefix(b, []byte(gen.Header)) {
			generated = append(generated, e.Name())
		}
	}
	if len(generated) != 1 || generated[0] != gen.File {
		t.Errorf("generated files %v; want exactly %s (one rename replaces all of it)", generated, gen.File)
	}
	// A file of that name without the header is the user's: left alone.
	user := []byte("package ops\n")
	if err := os.WriteFile(legacy, user, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, _ := runGenerateIn(t, dir); code != 0 {
		t.Fatalf("generate with a user file named %s: exit %d", gen.LegacyHelpersFile, code)
	}
	if b, _ := os.ReadFile(legacy); !bytes.Equal(b, user) {
		t.Error("generate removed or changed a file without the generated header")
	}
}

func TestGenerateKeepsTheMode(t *testing.T) {
	_, file := generatedModule(t)
	makeStale(t, file)
	if err := os.Chmod(file, 0o640); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runGenerateIn(t, filepath.Dir(filepath.Dir(file))); code != 0 {
		t.Fatalf("generate: exit %d\n%s", code, stderr)
	}
	st, err := os.Stat(file)
	if err != nil || st.Mode().Perm() != 0o640 {
		t.Errorf("mode after regeneration: %v (err %v); want 0640 kept", st.Mode().Perm(), err)
	}
}

func TestGenerateRefusesASymlinkAndAReadOnlyFile(t *testing.T) {
	dir, file := generatedModule(t)
	stale := makeStale(t, file)
	// A symbolic link: replacing it would turn it into a regular file.
	target := filepath.Join(t.TempDir(), "elsewhere.go")
	if err := os.Rename(file, target); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, file); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runGenerateIn(t, dir)
	if st, err := os.Lstat(file); code != 1 || !strings.Contains(stderr, "symbolic link") || err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("generate over a symlink: exit %d, stderr %q; want 1, a refusal, and the link kept", code, stderr)
	}
	if b, _ := os.ReadFile(target); !bytes.Equal(b, stale) {
		t.Error("the link's target was changed")
	}
	noTemps(t, filepath.Join(dir, "ops"))
	// A read-only file: refused, not silently made 0644.
	os.Remove(file)
	if err := os.WriteFile(file, stale, 0o444); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runGenerateIn(t, dir)
	if st, _ := os.Stat(file); code != 1 || !strings.Contains(stderr, "read-only") || st.Mode().Perm() != 0o444 {
		t.Errorf("generate over a 0444 file: exit %d, stderr %q, mode %v; want 1, a refusal, and 0444 kept", code, stderr, st.Mode().Perm())
	}
}

// TestGenerateSerializesConcurrentRuns: a run waits for the package's lock; and a writer
// that ignores the lock is detected instead of overwritten.
func TestGenerateSerializesConcurrentRuns(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no flock")
	}
	dir, file := generatedModule(t)
	makeStale(t, file)
	unlock, err := genfiles.Lock(filepath.Join(dir, "ops"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan int)
	go func() {
		code, _, _ := runGenerateIn(t, dir)
		done <- code
	}()
	select {
	case code := <-done:
		t.Fatalf("generate finished (exit %d) while another run held the package's lock", code)
	case <-time.After(300 * time.Millisecond):
	}
	unlock()
	if code := <-done; code != 0 {
		t.Fatalf("generate after the lock was released: exit %d", code)
	}

	// Runs at once: each waits its turn, none leaves a temporary file.
	makeStale(t, file)
	var wg sync.WaitGroup
	codes := make([]int, 4)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], _, _ = runGenerateIn(t, dir)
		}()
	}
	wg.Wait()
	for i, c := range codes {
		if c != 0 {
			t.Errorf("concurrent run %d: exit %d", i, c)
		}
	}
	noTemps(t, filepath.Join(dir, "ops"))

	// A writer that does not take the lock, between generation and the rename.
	makeStale(t, file)
	other := []byte(gen.Header + "\npackage ops\n// another writer\n")
	genfiles.BeforeCommit = func() { os.WriteFile(file, other, 0o644) }
	defer func() { genfiles.BeforeCommit = func() {} }()
	code, _, stderr := runGenerateIn(t, dir)
	if b, _ := os.ReadFile(file); code != 1 || !strings.Contains(stderr, "changed while it was generated") || !bytes.Equal(b, other) {
		t.Errorf("a file changed during generation: exit %d, stderr %q; want 1, the change reported and kept", code, stderr)
	}
	noTemps(t, filepath.Join(dir, "ops"))
}

// TestGenerateHelperProcess is the child of TestGenerateSignalsLeaveNoTemporaryFile: it runs
// ropgen generate and stops before the rename, after writing the temporary file.
func TestGenerateHelperProcess(t *testing.T) {
	marker := os.Getenv("ROPGEN_TEST_PAUSE_MARKER")
	if marker == "" {
		t.Skip("a helper process, run by TestGenerateSignalsLeaveNoTemporaryFile")
	}
	genfiles.BeforeCommit = func() {
		os.WriteFile(marker, nil, 0o644)
		time.Sleep(time.Minute)
	}
	dir := os.Getenv("ROPGEN_TEST_DIR")
	os.Exit(run([]string{"generate", "-manifests", filepath.Join(dir, "manifest"), "-ops", filepath.Join(dir, "ops"),
		"-formulas", filepath.Join(dir, "formulas")}, os.Stdout, os.Stderr))
}

func TestGenerateSignalsLeaveNoTemporaryFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGHUP")
	}
	dir, file := generatedModule(t)
	stale := makeStale(t, file)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGHUP, syscall.SIGINT} {
		if signal.Ignored(sig) {
			// Started under nohup, or as a background job of a shell without job control:
			// the helper inherits the ignored signal and rightly leaves it ignored.
			t.Logf("%v: ignored by this process, so by the helper too: not sent", sig)
			continue
		}
		marker := filepath.Join(t.TempDir(), "paused")
		cmd := exec.Command(os.Args[0], "-test.run=^TestGenerateHelperProcess$")
		cmd.Env = append(os.Environ(), "ROPGEN_TEST_PAUSE_MARKER="+marker, "ROPGEN_TEST_DIR="+dir)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for {
			if _, err := os.Stat(marker); err == nil {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("%v: the helper never reached the rename:\n%s", sig, out.String())
			}
			time.Sleep(20 * time.Millisecond)
		}
		if err := cmd.Process.Signal(sig); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if err == nil {
			t.Errorf("%v: the helper exited 0", sig)
		}
		noTemps(t, filepath.Join(dir, "ops"))
		if b, _ := os.ReadFile(file); !bytes.Equal(b, stale) {
			t.Errorf("%v: the generated file changed though the run was interrupted before the rename", sig)
		}
	}
}
