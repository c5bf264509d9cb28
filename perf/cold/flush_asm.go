//go:build amd64 || arm64

package cold

// canFlush: this architecture flushes lines by address (flush_amd64.s, flush_arm64.s).
const canFlush = true
