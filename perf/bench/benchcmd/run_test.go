package benchcmd

import (
	"testing"

	"github.com/ropgen/ropgen/perf/profiles"
)

// TestSameTimeAbove: with a -judge profile whose sweep measured its caches, the same-time
// reference starts where the report prices on DRAM alone (the largest working set a cache
// level serves), not at the /sys size of the flag's default; a -same-time-mib the user set,
// 0 included, or a profile without caches keeps the flag's value.
func TestSameTimeAbove(t *testing.T) {
	swept := &profiles.Profile{Caches: []profiles.CacheRoof{
		{Ceiling: profiles.Ceiling{Key: "l2"}, Bytes: 3 << 20, SysBytes: 4 << 20},
		{Ceiling: profiles.Ceiling{Key: "l3"}, Bytes: 64 << 20, SysBytes: 260 << 20},
	}}
	const flag = 260 << 20
	for _, c := range []struct {
		name   string
		flag   int64
		set    bool
		judged *profiles.Profile
		want   int64
	}{
		{"no profile", flag, false, nil, flag},
		{"swept profile", flag, false, swept, 64 << 20},
		{"set by the user", 128 << 20, true, swept, 128 << 20},
		{"set to none", 0, true, swept, 0},
		{"profile without caches", flag, false, &profiles.Profile{}, flag},
	} {
		if got := sameTimeAbove(c.flag, c.set, c.judged); got != c.want {
			t.Errorf("%s: %d bytes, want %d", c.name, got, c.want)
		}
	}
}
