package opsbench

import "testing"

func attnCase(label string, batch, heads, kvHeads, seqQ, seqKV, d int, causal bool, qdt, kvdt string) kcase {
	return kcase{op: "AttentionFwd", label: label,
		dims: map[string]int{"batch": batch, "heads": heads, "kv_heads": kvHeads, "seq_q": seqQ, "seq_kv": seqKV, "head_dim": d},
		shapes: map[string][]int{"q": {batch, heads, seqQ, d}, "k": {batch, kvHeads, seqKV, d}, "v": {batch, kvHeads, seqKV, d},
			"o": {batch, heads, seqQ, d}},
		params: map[string]any{"causal": causal}, dtype: qdt,
		dtypes: map[string]string{"k": kvdt, "v": kvdt}, outputs: []string{"o"}}
}

func TestAttentionMatchesReference(t *testing.T) {
	for _, k := range []kcase{
		attnCase("causal", 1, 4, 2, 16, 16, 32, true, "float32", "float32"),
		attnCase("cross", 2, 2, 2, 8, 24, 16, false, "float32", "float32"),
		attnCase("decode-fp8kv", 2, 8, 2, 1, 64, 32, true, "bfloat16", "float8_e4m3"),
		attnCase("blocks-causal", 1, 2, 1, 150, 170, 8, true, "float16", "float16"),
		attnCase("blocks-full", 1, 3, 3, 70, 20, 12, false, "float32", "float32"),
		attnCase("two-cores", 2, 8, 4, 32, 48, 16, true, "float32", "float32"),
	} {
		checkKernel(t, k)
	}
}
