package roofrt

import (
	"errors"
	"slices"
	"testing"
)

func TestCacheStore(t *testing.T) {
	var c rooflineCache
	a := []int{4, 128}
	c.store([][]int{a, nil, {}}, []int{7, rooflineFlag(true)}, 10, 20, nil)
	if !c.valid || c.flops != 10 || c.bytes != 20 || c.err != nil {
		t.Fatalf("store kept %+v", c)
	}
	if !rooflineSameShape(c.shapes[0], a) || rooflineSameShape(c.shapes[0], []int{4, 129}) {
		t.Error("shape 0 is not the stored key")
	}
	if c.shapes[1] != nil || !rooflineSameShape(c.shapes[1], nil) || rooflineSameShape(c.shapes[1], []int{}) {
		t.Error("an absent input (nil) must stay nil and differ from an empty shape")
	}
	if c.shapes[2] == nil || !rooflineSameShape(c.shapes[2], []int{}) || rooflineSameShape(c.shapes[2], nil) {
		t.Error("an empty shape must stay non-nil and differ from an absent input")
	}
	a[0] = 8 // the key is a copy: changing the bound slice in place is a new key
	if rooflineSameShape(c.shapes[0], a) {
		t.Error("the cache aliases the bound shape")
	}
	if !slices.Equal(c.ints, []int{7, 1}) || rooflineFlag(false) != 0 {
		t.Errorf("ints = %v", c.ints)
	}
	// A second store, with fewer shapes, a present input that was absent and the reverse.
	e := errors.New("x")
	c.store([][]int{nil, {3}}, []int{1}, 0, 0, e)
	if len(c.shapes) != 2 || c.shapes[0] != nil || !slices.Equal(c.shapes[1], []int{3}) || !slices.Equal(c.ints, []int{1}) || c.err != e {
		t.Errorf("second store kept %+v", c)
	}
}

// TestNullableKey: a nullable int is keyed by two entries, so nil and 0 differ.
func TestNullableKey(t *testing.T) {
	zero, five := 0, 5
	key := func(p *int) [2]int { return [2]int{rooflineFlag(p == nil), rooflineNullable(p)} }
	if key(nil) == key(&zero) || key(&zero) == key(&five) || key(&five) != [2]int{0, 5} || key(nil) != [2]int{1, 0} {
		t.Errorf("keys: nil %v, 0 %v, 5 %v", key(nil), key(&zero), key(&five))
	}
}

// TestCacheMissReusesStorage makes the store comment true: once the cache has seen keys of
// a size, a miss copies the new key into the storage it holds and allocates nothing.
func TestCacheMissReusesStorage(t *testing.T) {
	var c rooflineCache
	s1, s2 := []int{4, 32, 128}, []int{8, 32, 128}
	c.store([][]int{s1}, []int{-1, 4}, 1, 2, nil)
	i := 0
	allocs := testing.AllocsPerRun(100, func() {
		s := s1
		if i++; i%2 == 0 {
			s = s2
		}
		if !c.valid || !rooflineSameShape(c.shapes[0], s) || c.ints[0] != -1 {
			c.store([][]int{s}, []int{-1, 4}, 1, 2, nil)
		}
	})
	if allocs != 0 {
		t.Errorf("a cache miss allocates %v times; it should reuse the cache's storage", allocs)
	}
}

// storeBefore is store as it was before it reused its storage (kept for the benchmark).
func (c *rooflineCache) storeBefore(shapes [][]int, ints []int, flops, bytes int64, err error) {
	c.shapes = slices.Grow(c.shapes[:0], len(shapes))[:len(shapes)]
	for i, s := range shapes {
		if s == nil {
			c.shapes[i] = nil
		} else {
			c.shapes[i] = append(c.shapes[i][:0:0], s...)
		}
	}
	c.ints = append(c.ints[:0], ints...)
	c.flops, c.bytes, c.err, c.valid = flops, bytes, err, true
}

// BenchmarkCacheMiss alternates two keys so that every call misses, calling store the way
// generated EvalRoofline does (directly, with a literal key). Rounds interleave the store
// before and after the fix in one process: go test -run '^$' -bench CacheMiss -benchmem ./gen/roofrt
func BenchmarkCacheMiss(b *testing.B) {
	x1, x2, w := []int{4, 32, 128}, []int{8, 32, 128}, []int{128}
	dim, size := -1, 4
	before := func(b *testing.B) {
		var c rooflineCache
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			x := x1
			if i++; i%2 == 0 {
				x = x2
			}
			if !c.valid || !rooflineSameShape(c.shapes[0], x) || !rooflineSameShape(c.shapes[1], w) || c.ints[0] != dim || c.ints[1] != size {
				c.storeBefore([][]int{x, w}, []int{dim, size}, 1, 2, nil)
			}
		}
	}
	after := func(b *testing.B) {
		var c rooflineCache
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			x := x1
			if i++; i%2 == 0 {
				x = x2
			}
			if !c.valid || !rooflineSameShape(c.shapes[0], x) || !rooflineSameShape(c.shapes[1], w) || c.ints[0] != dim || c.ints[1] != size {
				c.store([][]int{x, w}, []int{dim, size}, 1, 2, nil)
			}
		}
	}
	for range 3 {
		b.Run("before", before)
		b.Run("after", after)
	}
}
