package stream

import "github.com/ropgen/ropgen/internal/stream/streamtest"

// The streaming kernels' test inputs (streamtest).
var (
	streamData = streamtest.Data
	aligned64  = streamtest.Aligned64
)
