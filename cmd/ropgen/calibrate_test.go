package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/ropgen/ropgen/perf/calibrate"
	"github.com/ropgen/ropgen/perf/profiles"
)

// shortCalibration is a whole calibration with tiny arrays and runs, and no cache sweep: its
// one round of tiny sizes can order the levels wrong on a loaded test machine, which refuses
// the calibration (TestCalibrateRefuses tests that path, perf/calibrate the sweep).
var shortCalibration = []string{"-mib", "2", "-repeats", "1", "-fma-ms", "2", "-sweep-mib", "0"}

// TestCalibrateShortRun runs the whole command with small arrays and short runs.
func TestCalibrateShortRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "cache", "host.yaml")
	var stdout, stderr bytes.Buffer
	if code := run(append([]string{"calibrate", "-o", out}, shortCalibration...), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	p, err := profiles.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Matches(profiles.HostDeviceName()) {
		t.Errorf("host profile device %q does not match HostDeviceName %q", p.Device, profiles.HostDeviceName())
	}
	if len(p.MixFractions) < 4 || p.LatencyFloor <= 0 || p.Measured.Cores < 1 || p.Measured.At.IsZero() {
		t.Errorf("mixes %v, latency floor %g, measured %+v", p.MixFractions, p.LatencyFloor, p.Measured)
	}
	for _, key := range []string{"vector.fp32", "vector.fp64", "scalar.fp32", "scalar.fp64", "cube.fp32"} {
		if c, ok := p.Roof(key); !ok || !c.Calibrated() || c.Spread.N != 1 {
			t.Errorf("%s: %+v, %v", key, c, ok)
		}
	}
	entries, _ := os.ReadDir(filepath.Dir(out))
	if len(entries) != 1 {
		t.Errorf("calibrate left %d files beside its output", len(entries))
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o644 {
		t.Errorf("new profile has mode %v, want 0644", st.Mode().Perm())
	}
}

func TestCalibrateUsage(t *testing.T) {
	for _, args := range [][]string{{"calibrate"}, {"calibrate", "-o", "x", "extra"}, {"calibrate", "-o", "x", "-repeats", "0"}, {"calibrate", "-o", "x", "-sweep-mib", "-1"}} {
		var stdout, stderr bytes.Buffer
		if code := run(args, &stdout, &stderr); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}

// TestCalibrateRefusesBadDestinations checks issue 11 item 3: a destination that is not a
// writable regular file, a stream or absent is refused before any measurement (the progress
// line that opens a calibration never appears), and is left as it was. A named pipe no
// process reads is refused too: a blocking open would wait for a reader for ever. (A
// stream such as /dev/null is written in place: internal/output's TestStreams.)
func TestCalibrateRefusesBadDestinations(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.yaml")
	if err := os.WriteFile(target, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	readOnly := filepath.Join(dir, "ro.yaml")
	if err := os.WriteFile(readOnly, []byte("keep\n"), 0o444); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo.yaml")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{link: "symbolic link", readOnly: "read-only", fifo: "no process reads", sub: "directory"}
	for dest, why := range cases {
		var stdout, stderr bytes.Buffer
		code := run(append([]string{"calibrate", "-o", dest}, shortCalibration...), &stdout, &stderr)
		if code != 1 || !strings.Contains(stderr.String(), why) {
			t.Errorf("-o %s: exit %d, stderr %q; want 1 and %q", dest, code, stderr.String(), why)
		}
		if strings.Contains(stderr.String(), "workers") {
			t.Errorf("-o %s: measured before refusing: %s", dest, stderr.String())
		}
	}
	for _, f := range []string{target, readOnly} {
		if b, _ := os.ReadFile(f); string(b) != "keep\n" {
			t.Errorf("%s changed: %q", f, b)
		}
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the symlink was replaced: %v, %v", st, err)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v, %v", st, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 5 {
		t.Errorf("%d entries in the directory, want the 5 made by the test", len(entries))
	}
}

// TestCalibrateReplacesAndKeepsMode checks that an existing profile is replaced whole and
// keeps its mode.
func TestCalibrateReplacesAndKeepsMode(t *testing.T) {
	out := filepath.Join(t.TempDir(), "host.yaml")
	if err := os.WriteFile(out, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if code := run(append([]string{"calibrate", "-o", out}, shortCalibration...), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if _, err := profiles.Load(out); err != nil {
		t.Error(err)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want the old file's 0600", st.Mode().Perm())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// TestCalibrateStdoutErrors checks that `-o -` exits non-zero when standard output fails.
func TestCalibrateStdoutErrors(t *testing.T) {
	var stderr bytes.Buffer
	code := run(append([]string{"calibrate", "-o", "-"}, shortCalibration...), failingWriter{}, &stderr)
	if code != 1 || !strings.Contains(stderr.String(), "writing standard output: no space left on device") {
		t.Errorf("exit %d, stderr %q", code, stderr.String())
	}
	var stdout bytes.Buffer
	stderr.Reset()
	if code := run(append([]string{"calibrate", "-o", "-"}, shortCalibration...), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if _, err := profiles.Parse("stdout", stdout.Bytes()); err != nil {
		t.Error(err)
	}
}

// TestCalibrateRefuses checks issue 21 item 2: a calibration whose rounds disagree is
// measured again while the budget allows and then refused, exit 3 with the reason, writing
// nothing: an existing profile is left as it was, an absent one stays absent.
func TestCalibrateRefuses(t *testing.T) {
	calls := 0
	measure = func(calibrate.Config) *calibrate.Result {
		calls++
		samples := []float64{300e9, 200e9, 210e9, 290e9, 205e9, 198e9, 220e9}
		return &calibrate.Result{Config: calibrate.Config{Repeats: 7}, Compute: []calibrate.ComputeResult{
			{Kernel: "avx512", DType: "fp32", Samples: samples, Rate: profiles.SpreadOf(slices.Clone(samples))}}}
	}
	defer func() { measure = calibrate.Run }()
	dir := t.TempDir()
	old := filepath.Join(dir, "old.yaml")
	if err := os.WriteFile(old, []byte("keep\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dest := range []string{old, filepath.Join(dir, "new.yaml"), "-"} {
		calls = 0
		var stdout, stderr bytes.Buffer
		code := run([]string{"calibrate", "-o", dest, "-budget", "0"}, &stdout, &stderr)
		if code != 3 || calls != 1 || !strings.Contains(stderr.String(), "refused (attempt 1; -budget 0s)") ||
			!strings.Contains(stderr.String(), "vector.fp32 (avx512): the median round") || stdout.Len() > 0 {
			t.Errorf("-o %s: exit %d after %d attempts, stdout %q, stderr %q", dest, code, calls, stdout.String(), stderr.String())
		}
	}
	if b, _ := os.ReadFile(old); string(b) != "keep\n" {
		t.Errorf("the old profile changed: %q", b)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d entries in the directory, want the old profile alone", len(entries))
	}
}

// TestCalibrateLoaded: with -loaded FILE, a refused calibration still exits 3 and writes
// nothing to -o, but writes the refused measurement to FILE with its reasons under
// measured.refused, a profile that loads as measured under load; -loaded naming -o's file
// is bad usage.
func TestCalibrateLoaded(t *testing.T) {
	// A real short calibration whose vector.fp32 rounds are made to disagree: a median half
	// its best, as on a machine whose other core is busy.
	measure = func(cfg calibrate.Config) *calibrate.Result {
		r := calibrate.Run(cfg)
		for i := range r.Compute {
			if r.Compute[i].Kernel != "scalar" {
				best := r.Compute[i].Rate.Max
				r.Compute[i].Samples = []float64{best, best / 2, best / 2}
				r.Compute[i].Rate = profiles.SpreadOf(slices.Clone(r.Compute[i].Samples))
			}
		}
		return r
	}
	defer func() { measure = calibrate.Run }()
	dir := t.TempDir()
	out, loaded := filepath.Join(dir, "host.yaml"), filepath.Join(dir, "host-loaded.yaml")
	args := []string{"calibrate", "-o", out, "-loaded", loaded, "-budget", "0", "-mib", "2", "-repeats", "3", "-fma-ms", "2", "-sweep-mib", "1"}
	var stdout, stderr bytes.Buffer
	if code := run(args, &stdout, &stderr); code != 3 || !strings.Contains(stderr.String(), "the refused measurement is in "+loaded) {
		t.Fatalf("exit %d, stderr %s", code, stderr.String())
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("-o %s was written: %v", out, err)
	}
	p, err := profiles.Load(loaded)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Measured.Loaded() || !strings.Contains(strings.Join(p.Measured.Refused, "\n"), "the median round") {
		t.Errorf("the refused measurement does not say why: %+v", p.Measured)
	}
	if len(p.Caches) != 0 {
		t.Errorf("the refused measurement keeps cache roofs a loaded sweep orders by the load: %+v", p.Caches)
	}
	stderr.Reset()
	if code := run([]string{"calibrate", "-o", out, "-loaded", out}, &stdout, &stderr); code != 2 || !strings.Contains(stderr.String(), "must be a file other than -o's") {
		t.Errorf("-loaded = -o: exit %d, stderr %s", code, stderr.String())
	}
}
