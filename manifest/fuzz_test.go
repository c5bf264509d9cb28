package manifest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ropgen/ropgen/internal/cputime"
)

// FuzzLoad feeds any bytes to the validator as a manifest file. It must never panic, every
// finding must carry the file and a line:col, and the schema must stay at least as strict as
// the decoder. `go test ./schema` runs the seeds (every manifest of the repository);
// `go test ./schema -fuzz FuzzLoad` explores.
func FuzzLoad(f *testing.F) {
	var seeds []string
	for _, pattern := range []string{"../testdata/validate/*/*.yaml", "../manifest/*.yaml"} {
		m, _ := filepath.Glob(pattern)
		seeds = append(seeds, m...)
	}
	for _, p := range seeds {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("X: {family: f, status: spec-only, signature: {inputs: {x: {dtype: float32}}, outputs: {}}, roofline: {func: formulas.Scan}}"))
	f.Add([]byte("X: {family: f, status: implemented, signature: {inputs: {x: {dtype: float32, shape: '[N, N // 2]'}}, outputs: {}}, workloads: [{N: 1e3, dtypes: [float32]}], roofline: {flops: '0', bytes: '0'}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		const name = "fuzz.yaml"
		file, fs := Parse(name, data)
		if file != nil {
			_, cfs := testConfig.check([]*File{file})
			fs = append(fs, cfs...)
			agreeWithDecoder(t, file)
		}
		for _, x := range fs {
			if x.Pos.File != name {
				t.Errorf("finding without its file: %v", x)
			}
			// Only a file-level problem (too large, YAML syntax without a line) may lack a
			// position; everything found in a parsed file has one.
			if file != nil && (x.Pos.Line < 1 || x.Pos.Col < 1) {
				t.Errorf("finding without line:col: %v", x)
			}
		}
	})
}

// synthetic writes n ops, spread over files of 500, covering both modes, fixed and arbitrary
// rank, params, optional inputs, mapping dtypes and shape rules.
func synthetic(dir string, n int) error {
	const perFile = 500
	entries := []string{`GemmFwd%d:
  family: gemm
  status: implemented
  signature:
    inputs:
      a: {dtype: "float16 | bfloat16 | float32", shape: "[M, K]"}
      b: {dtype: "same_as(a)", shape: "[K, N]"}
      bias: {dtype: "same_as(a)", shape: "[N]", optional: true}
    outputs:
      c: {dtype: "same_as(a)", shape: "[M, N]"}
    shape_rules: ["K %% 8 == 0", "bias == nil || bias.shape[0] == N"]
  workloads:
    - {M: 1, N: 4096, K: 4096, with_bias: true, dtypes: [bfloat16, float16], label: decode}
    - {M: 2048, N: 14336, K: 4096, dtypes: [bfloat16], label: prefill}
  roofline:
    flops: "2 * M * N * K"
    bytes: "(M * K + K * N + M * N) * elem_bytes"
`, `RMSNormFwd%d:
  family: norm
  status: implemented
  signature:
    inputs:
      x: {dtype: "float16 | bfloat16 | float32"}
      weight: {dtype: "same_as(x)", optional: true}
    outputs:
      y: {dtype: "same_as(x)"}
    params:
      dim: {type: int, default: -1}
      eps: {type: float64, default: 1.0e-6}
    shape_rules: ["dim >= -x.ndim && dim < x.ndim", "weight == nil || weight.shape[0] == x.shape[x.ndim - 1]"]
  workloads:
    - {x_shape: [1, 4096], weight_shape: [4096], dtypes: [bfloat16], label: decode}
    - {x_shape: [2048, 4096], dtypes: [bfloat16, float32], label: prefill}
  roofline:
    vars: {N: "x.shape[normdim(dim, x.ndim)]", M: "product(x.shape) / N"}
    flops: "4 * M * N"
    bytes: "(2 * M * N + N) * elem_bytes"
`, `AttentionFwd%d:
  family: attention
  status: implemented
  signature:
    inputs:
      q: {dtype: "float16 | bfloat16", shape: "[B, H, S, D]"}
      k: {dtype: "float16 | bfloat16 | float8_e4m3", shape: "[B, H_kv, S_kv, D]"}
      v: {dtype: "same_as(k)", shape: "[B, H_kv, S_kv, D]"}
    outputs:
      o: {dtype: "same_as(q)", shape: "[B, H, S, D]"}
    params:
      causal: {type: bool, default: false}
      window: {type: "*int"}
    shape_rules: ["H %% H_kv == 0", "window == nil || window > 0"]
  workloads:
    - {B: 1, H: 32, H_kv: 8, S: 1, S_kv: 4096, D: 128, dtypes: [{q: bfloat16, k: float8_e4m3}], label: decode}
    - {B: 1, H: 32, H_kv: 8, S: 2048, S_kv: 2048, D: 128, causal: true, dtypes: [{q: bfloat16, k: bfloat16}], label: prefill}
  roofline:
    func: "formulas.Attention"
`}
	for start := 0; start < n; start += perFile {
		var b bytes.Buffer
		for i := start; i < min(start+perFile, n); i++ {
			fmt.Fprintf(&b, entries[i%len(entries)], i)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("ops%02d.yaml", start/perFile)), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkValidateCatalog measures Load, the whole of `ropgen validate` but printing,
// on the repository's catalog and on a synthetic catalog of 5,000 ops. Targets: the catalog
// in under 50 ms, 5,000 ops in under 1 s. The Python anchor's schema-level validation of its
// 178-op catalog took 0.87 s. ms/manifest-op is the time per op entry.
func BenchmarkValidateCatalog(b *testing.B) {
	bench := func(b *testing.B, c Config, dir string) {
		cat, fs := c.Load(dir)
		if len(fs) > 0 {
			b.Fatalf("findings:\n%v", fs)
		}
		b.ResetTimer()
		start, cpu := time.Now(), cputime.Process()
		for range b.N {
			c.Load(dir)
		}
		per := time.Since(start).Seconds() * 1e3 / float64(b.N)
		b.ReportMetric(per, "ms/catalog")
		b.ReportMetric(per/float64(len(cat.Ops)), "ms/manifest-op")
		// The CPU time of one run (every thread's): on a shared machine the wall time
		// stretches with the other processes' load.
		b.ReportMetric((cputime.Process()-cpu).Seconds()/float64(b.N), "cpu-s/op")
	}
	b.Run("catalog", func(b *testing.B) { bench(b, Config{}, "../manifest") })
	// 20,000 shows the validation linear: ms/manifest-op as at 5,000.
	for _, n := range []int{5000, 20000} {
		b.Run(fmt.Sprintf("synthetic-%d", n), func(b *testing.B) {
			dir := b.TempDir()
			if err := synthetic(dir, n); err != nil {
				b.Fatal(err)
			}
			bench(b, testConfig, dir)
		})
	}
}
