// Command ropcompare is `make compare`: the catalog's kernels against their peers on this
// machine, measured side by side. Each row of cases.go runs three ways in interleaved
// rounds (the order rotating each round): our kernel through the catalog (opsbench.Build and
// Instance.Run, in this process), numpy on the same shapes (compare/numpy_worker.py under
// the system python3, whose matmul is its BLAS: OpenBLAS on Debian), and the C limit the op
// is bound by (compare/limits.c: an FMA loop, a read or a copy of the row's bytes, on all
// threads). In each round each side reports the fastest of three timed batches (on a shared
// machine other jobs only ever add time). It prints, per row, each side's median rate and
// the ratios ours/numpy and ours/limit as the median and range of the per-round ratios (not
// the quotient of the median rates, which come from different rounds): the machine is
// shared, so only ratios measured in one run mean anything. Below the table, a warning
// names each row whose kernel read above its C limit in some round: the limit was
// disturbed in that round, or it is not the machine's best for that work. A second table
// (roofs.go) sets the calibration's compute roofs (vector.fp32, vector.bf16, vector.fp16,
// an AMX cube.bf16), timed by the calibration's own kernels and statistic, against C
// intrinsics loops in the same rounds, where the compiler and the CPU have them.
//
// numpy and the C compiler are optional: without one its columns are skipped with a
// message, without both the command says so and exits 0.
//
//	ropcompare [-rounds 7] [-sample 20ms] [-threads N] [-case REGEX] [-python /usr/bin/python3] [-cc cc] [-dir compare]
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/klauspost/cpuid/v2"

	"github.com/ropgen/ropgen/internal/cli"
	"github.com/ropgen/ropgen/internal/opsbench"
	"github.com/ropgen/ropgen/manifest"
	"github.com/ropgen/ropgen/ops"
	"github.com/ropgen/ropgen/perf/bench"
	"github.com/ropgen/ropgen/perf/stats"
)

// compareCase is one row of the comparison (cases.go).
type compareCase struct {
	Name, Op, Set, DType string
	Numpy                string // numpy expression over the op's argument names; "" none
	Limit                string // limitFMA, limitRead or limitCopy
}

// batches is how many timed batches each side runs per round, reporting the fastest (the
// numpy and C workers do the same).
const batches = 3

// The C limits (compare/limits.c requests).
const (
	limitFMA  = "fma"
	limitRead = "read"
	limitCopy = "copy"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	fl := cli.NewFlags("ropcompare", "[-rounds N] [-sample DURATION] [-threads N] [-case REGEX] [-python PATH] [-cc CC] [-dir DIR] [-manifests PATHS] [-coretypes LIST]", `
Ropcompare measures the catalog's kernels against numpy and C limits (FMA, read, copy) on
this machine, in interleaved rounds, and prints each side's median rate and the ratios with
their range (docs/ops.md). numpy and the C compiler are optional: without one its columns
are skipped with a message.`, stdout, stderr)
	rounds := fl.Int("rounds", 7, "interleaved `N` rounds; each gives one ratio per row")
	sample := fl.Duration("sample", 20*time.Millisecond, "each of a side's three timed batches lasts at least this `long`")
	only := fl.String("case", "", "only rows whose name or op (a compute roof: whose key, e.g. vector.bf16) contains a match of `REGEX`")
	python := fl.String("python", "/usr/bin/python3", "the `python3` with numpy (numpy column skipped without it)")
	cc := fl.String("cc", envOr("CC", "cc"), "the C `compiler` of the limits (limit column skipped without it)")
	dir := fl.String("dir", "compare", "the `directory` of numpy_worker.py and limits.c")
	manifestDir := fl.String("manifests", "manifest", "the catalog `PATHS` (the one manifest flag of every command)")
	coretypes := fl.String("coretypes", "auto", "OPENBLAS_CORETYPE `LIST` (comma-separated) that numpy's OpenBLAS is tried with besides its own choice, the fastest that computes right kept; auto: the AVX-512 and AVX2 kernels on amd64; none: its own choice only")
	threads := fl.Int("threads", 0, "`N` threads on every side (GOMAXPROCS, OPENBLAS_NUM_THREADS, the C loops); 0: all CPUs. -threads 1 compares single cores, which a shared machine disturbs less")
	if code, ok := fl.Parse(args); !ok {
		return code
	}
	if code, ok := fl.NoArgs(); !ok {
		return code
	}
	if *rounds < 1 || *sample <= 0 || *threads < 0 {
		fmt.Fprintln(stderr, "ropcompare: -rounds and -sample must be positive, -threads not negative")
		return 2
	}
	var re *regexp.Regexp
	if *only != "" {
		var err error
		if re, err = regexp.Compile(*only); err != nil {
			fmt.Fprintf(stderr, "ropcompare: -case: %v\n", err)
			return 2
		}
	}
	if *threads > 0 {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(*threads))
	}
	var cores []string
	switch *coretypes {
	case "auto":
		cores = coreCandidates()
	case "none", "":
	default:
		cores = strings.Split(*coretypes, ",")
	}
	if err := compare(stdout, stderr, config{*rounds, *sample, re, *python, *cc, *dir, *manifestDir, *threads, cores}); err != nil {
		fmt.Fprintf(stderr, "ropcompare: %v\n", err)
		return 1
	}
	return 0
}

type config struct {
	rounds         int
	sample         time.Duration
	only           *regexp.Regexp
	python, cc     string
	dir, manifests string
	threads        int      // 0: all CPUs
	coretypes      []string // OPENBLAS_CORETYPE candidates for the numpy peer (blas.go)
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// row is a case made ready: our instance, its work, and the peers' handles.
type row struct {
	compareCase
	run         func() error
	calls       int              // calls per timed batch of ours
	work        float64          // FLOPs (limitFMA) or bytes of one call
	numpyID     string           // "" when numpy does not run this row
	limitReq    string           // the limits worker request; "" when none
	numpyArrays map[string][]int // the shapes of the op's arguments, by name
	ours        []float64
	numpy       []float64 // seconds per call, per round
	limit       []float64 // rate of the C limit (work per second), per round
}

func compare(stdout, stderr io.Writer, cfg config) error {
	np, npErr := startNumpy(cfg, stderr)
	lim, limErr := startLimits(cfg)
	if npErr != nil && limErr != nil {
		fmt.Fprintf(stdout, "make compare: skipped: no peer to compare with (numpy: %v; C limits: %v)\n", npErr, limErr)
		return nil
	}
	if npErr != nil {
		fmt.Fprintf(stderr, "ropcompare: numpy column skipped: %v\n", npErr)
	} else {
		defer np.close()
	}
	if limErr != nil {
		fmt.Fprintf(stderr, "ropcompare: C limit column skipped: %v\n", limErr)
	} else {
		defer lim.close()
	}
	rows, err := buildRows(cfg)
	if err != nil {
		return err
	}
	roofs, err := roofRows(cfg, lim)
	if err != nil {
		return err
	}
	if len(rows)+len(roofs) == 0 {
		return errors.New("no row selected")
	}
	for _, r := range rows {
		if np != nil && r.Numpy != "" {
			if err := np.setup(r); err != nil {
				fmt.Fprintf(stderr, "ropcompare: %s: numpy skipped: %v\n", r.Name, err)
				r.numpyID = ""
			}
		} else {
			r.numpyID = ""
		}
		if lim == nil {
			r.limitReq = ""
		}
		if r.calls, err = bench.BatchSize(r.run, cfg.sample); err != nil {
			return fmt.Errorf("%s: %v", r.Name, err)
		}
	}
	for round := range cfg.rounds {
		fmt.Fprintf(stderr, "ropcompare: round %d of %d\n", round+1, cfg.rounds)
		for _, r := range rows {
			sides := []func() error{
				func() error {
					best := math.Inf(1)
					for range batches {
						s, err := bench.WarmSample(r.run, r.calls)
						if err != nil {
							return err
						}
						best = min(best, s)
					}
					r.ours = append(r.ours, best)
					return nil
				},
				func() error {
					if r.numpyID == "" {
						return nil
					}
					s, err := np.time(r.numpyID)
					r.numpy = append(r.numpy, s)
					return err
				},
				func() error {
					if r.limitReq == "" {
						return nil
					}
					s, work, err := lim.time(r.limitReq)
					r.limit = append(r.limit, work/s)
					return err
				},
			}
			for i := range sides {
				if err := sides[(i+round)%len(sides)](); err != nil {
					return fmt.Errorf("%s: %v", r.Name, err)
				}
			}
		}
		for _, r := range roofs {
			sides := r.sides(lim)
			for i := range sides {
				if err := sides[(i+round)%len(sides)](); err != nil {
					return fmt.Errorf("%s: %v", r.rk.Key, err)
				}
			}
		}
	}
	printTable(stdout, rows, cfg, np, lim)
	printRoofs(stdout, roofs)
	return nil
}

// buildRows builds every selected case of cases.go with data, through the catalog.
func buildRows(cfg config) ([]*row, error) {
	opsList, _, err := bench.Load(manifest.Config{}, cfg.manifests)
	if err != nil {
		return nil, err
	}
	var rows []*row
	for i, c := range cases {
		if cfg.only != nil && !cfg.only.MatchString(c.Name) && !cfg.only.MatchString(c.Op) {
			continue
		}
		op, err := bench.FindOp(opsList, c.Op)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", c.Name, err)
		}
		bc, err := bench.SetCases(op, c.Set, c.DType)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", c.Name, err)
		}
		plans, err := bench.Plan(opsbench.Registry, bc[:1], bench.Limits{})
		if err != nil {
			return nil, fmt.Errorf("%s: %v", c.Name, err)
		}
		if plans[0].Skip != "" {
			return nil, fmt.Errorf("%s: %s", c.Name, plans[0].Skip)
		}
		in, err := opsbench.Build(bc[0].Case, bench.BuildOptions{Seed: 1})
		if err != nil {
			return nil, fmt.Errorf("%s: %v", c.Name, err)
		}
		r := &row{compareCase: c, run: in.Run, numpyID: strconv.Itoa(i)}
		switch c.Limit {
		case limitFMA:
			r.work = float64(plans[0].Flops)
			r.limitReq = limitFMA
		case limitRead, limitCopy:
			r.work = float64(plans[0].Bytes)
			r.limitReq = fmt.Sprintf("%s %d", c.Limit, plans[0].Bytes)
		default:
			return nil, fmt.Errorf("%s: limit %q is none of %s, %s, %s", c.Name, c.Limit, limitFMA, limitRead, limitCopy)
		}
		r.numpyArrays = map[string][]int{}
		for _, a := range append(slices.Clone(in.Inputs), in.Outputs...) {
			r.numpyArrays[a.Name] = a.T.Shape
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// worker is a peer process answering one line per request line.
type worker struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	what string
}

func startWorker(what string, cmd *exec.Cmd) (*worker, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	return &worker{cmd: cmd, in: in, out: bufio.NewReader(out), what: what}, nil
}

func (w *worker) ask(req string) (string, error) {
	if _, err := io.WriteString(w.in, req+"\n"); err != nil {
		return "", fmt.Errorf("%s: %v", w.what, err)
	}
	line, err := w.out.ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("%s: no answer to %q: %v", w.what, req, err)
	}
	line = strings.TrimSpace(line)
	if msg, ok := strings.CutPrefix(line, "error: "); ok {
		return "", fmt.Errorf("%s: %s", w.what, msg)
	}
	return line, nil
}

func (w *worker) close() {
	w.in.Close()
	_ = w.cmd.Wait()
}

// peerEnv is the environment of the peers: this one without OPENBLAS_CORETYPE and
// OPENBLAS_L2_SIZE, which some hosts set and which would pin OpenBLAS to another kernel,
// and with the thread count of -threads.
func peerEnv(cfg config) []string {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		for _, k := range []string{"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"} {
			if strings.HasPrefix(kv, k+"=") {
				return true
			}
		}
		return false
	})
	if cfg.threads > 0 {
		n := strconv.Itoa(cfg.threads)
		env = append(env, "OPENBLAS_NUM_THREADS="+n, "OMP_NUM_THREADS="+n)
	}
	return env
}

type numpyWorker struct {
	*worker
	version  string
	blasNote string // which BLAS and kernel it runs, and how it was chosen (blas.go)
}

// startNumpy starts the numpy worker at its best (blas.go), trying cfg.coretypes.
func startNumpy(cfg config, log io.Writer) (*numpyWorker, error) {
	if _, err := exec.LookPath(cfg.python); err != nil {
		return nil, err
	}
	ver := exec.Command(cfg.python, "-c", "import numpy; print(numpy.__version__)")
	ver.Env = peerEnv(cfg)
	v, err := ver.Output()
	if err != nil {
		return nil, fmt.Errorf("%s has no numpy (%v)", cfg.python, err)
	}
	version := strings.TrimSpace(string(v))
	return bestNumpy(func(coretype string) (*numpyWorker, error) {
		cmd := exec.Command(cfg.python, filepath.Join(cfg.dir, "numpy_worker.py"))
		cmd.Env = peerEnv(cfg)
		what := "numpy"
		if coretype != "" {
			cmd.Env = append(cmd.Env, "OPENBLAS_CORETYPE="+coretype)
			what += " (OPENBLAS_CORETYPE=" + coretype + ")"
		}
		w, err := startWorker(what, cmd)
		if err != nil {
			return nil, err
		}
		return &numpyWorker{worker: w, version: version}, nil
	}, cfg.coretypes, log)
}

func (w *numpyWorker) setup(r *row) error {
	req, err := json.Marshal(map[string]any{"setup": r.numpyID, "arrays": r.numpyArrays, "expr": r.Numpy})
	if err != nil {
		return err
	}
	_, err = w.ask(string(req))
	return err
}

func (w *numpyWorker) time(id string) (float64, error) {
	req, _ := json.Marshal(map[string]string{"time": id})
	line, err := w.ask(string(req))
	if err != nil {
		return 0, err
	}
	return strconv.ParseFloat(line, 64)
}

type limitsWorker struct {
	*worker
	tmp string
}

func startLimits(cfg config) (*limitsWorker, error) {
	if _, err := exec.LookPath(cfg.cc); err != nil {
		return nil, err
	}
	tmp, err := os.MkdirTemp("", "ropcompare")
	if err != nil {
		return nil, err
	}
	bin := filepath.Join(tmp, "limits")
	build := exec.Command(cfg.cc, "-O2", "-march=native", "-pthread", "-o", bin, filepath.Join(cfg.dir, "limits.c"))
	if out, err := build.CombinedOutput(); err != nil {
		os.RemoveAll(tmp)
		return nil, fmt.Errorf("%s: %v\n%s", strings.Join(build.Args, " "), err, out)
	}
	var args []string
	if cfg.threads > 0 {
		args = append(args, strconv.Itoa(cfg.threads))
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = peerEnv(cfg)
	w, err := startWorker("C limits", cmd)
	if err != nil {
		os.RemoveAll(tmp)
		return nil, err
	}
	return &limitsWorker{w, tmp}, nil
}

func (w *limitsWorker) time(req string) (seconds, work float64, err error) {
	line, err := w.ask(req)
	if err != nil {
		return 0, 0, err
	}
	if _, err := fmt.Sscan(line, &seconds, &work); err != nil {
		return 0, 0, fmt.Errorf("the C limits: answer %q: %v", line, err)
	}
	return seconds, work, nil
}

func (w *limitsWorker) close() {
	w.worker.close()
	os.RemoveAll(w.tmp)
}

// printTable writes the Markdown table of the rounds.
func printTable(w io.Writer, rows []*row, cfg config, np *numpyWorker, lim *limitsWorker) {
	fmt.Fprintf(w, "`make compare` on %s (%d CPUs, GOMAXPROCS %d), %s, load average %s; GEMM kernel %s;",
		strings.TrimSpace(cpuid.CPU.BrandName), runtime.NumCPU(), runtime.GOMAXPROCS(0),
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), loadAvg(), ops.GemmKernel())
	if np != nil {
		fmt.Fprintf(w, " numpy %s (%s);", np.version, np.blasNote)
	}
	threads := "all CPUs on every side"
	if cfg.threads > 0 {
		threads = fmt.Sprintf("%d thread(s) on every side", cfg.threads)
	}
	fmt.Fprintf(w, " %s; %d interleaved rounds, ratios as median [min–max] of the rounds.\n", threads, cfg.rounds)
	fmt.Fprint(w, "Rates are each side's median; a ratio is the median of the per-round ratios, not the quotient of two medians.\n")
	if len(rows) == 0 {
		return
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| case | ours | numpy | ours/numpy | C limit | limit | ours/limit |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	var warnings []string
	for _, r := range rows {
		unit, scale := "GB/s", 1e-9
		if r.Limit == limitFMA {
			unit = "GFLOP/s"
		}
		rate := func(s float64) float64 { return r.work / s * scale }
		ours := mapf(r.ours, rate)
		cells := []string{r.Name, fmt.Sprintf("%.1f %s", stats.Median(ours), unit), "—", "—", r.Limit, "—", "—"}
		if len(r.numpy) > 0 {
			cells[2] = fmt.Sprintf("%.1f %s", stats.Median(mapf(r.numpy, rate)), unit)
			cells[3] = spread(ratios(r.numpy, r.ours)) // time ratio numpy/ours = rate ratio ours/numpy
		}
		if len(r.limit) > 0 {
			lims := mapf(r.limit, func(v float64) float64 { return v * scale })
			cells[5] = fmt.Sprintf("%.1f %s", stats.Median(lims), unit)
			rs := ratios(ours, lims)
			cells[6] = spread(rs)
			if msg := aboveLimit(rs); msg != "" {
				warnings = append(warnings, fmt.Sprintf("warning: %s: %s", r.Name, msg))
			}
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	if len(warnings) > 0 {
		fmt.Fprintf(w, "\n%s\n", strings.Join(warnings, "\n"))
	}
}

// aboveLimit says in how many rounds ours/limit (one ratio a round) exceeded 1, and by how
// much, or "" when none did. A limit is the best this machine does: ours above it in a
// round means the limit was disturbed in that round or is no ceiling for the row.
func aboveLimit(rs []float64) string {
	n, worst := 0, 0.0
	for _, x := range rs {
		if x > 1 {
			n, worst = n+1, max(worst, x)
		}
	}
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("ours above its limit in %d of %d rounds (up to %.2f×): the limit was disturbed in those rounds, or it is no ceiling", n, len(rs), worst)
}

func mapf(xs []float64, f func(float64) float64) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// ratios returns a[i]/b[i], round by round.
func ratios(a, b []float64) []float64 {
	out := make([]float64, min(len(a), len(b)))
	for i := range out {
		out[i] = a[i] / b[i]
	}
	return out
}

func spread(xs []float64) string {
	return fmt.Sprintf("%.2f× [%.2f–%.2f]", stats.Median(xs), slices.Min(xs), slices.Max(xs))
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "unknown"
	}
	return f[0]
}
