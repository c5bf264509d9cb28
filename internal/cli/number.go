package cli

import (
	"fmt"
	"math"
	"strconv"
)

// Int64 defines an int64 flag that also accepts the notation the tools print their limits
// in: an exponent (3e9, 2e+09) or a decimal point (1.5e6), as long as the value is a whole
// number that fits. It replaces flag.FlagSet's Int64 for every command of this module.
func (f *Flags) Int64(name string, value int64, usage string) *int64 {
	p := new(int64)
	*p = value
	f.FlagSet.Var((*wholeValue)(p), name, usage)
	return p
}

// Int is Int64 for an int flag.
func (f *Flags) Int(name string, value int, usage string) *int {
	p := new(int)
	*p = value
	f.FlagSet.Var((*intValue)(p), name, usage)
	return p
}

// ParseWhole parses s as a whole number: an integer ("3000000000") or a number in exponent or
// decimal notation whose value is whole and fits in an int64 ("3e9", "2e+09").
func ParseWhole(s string) (int64, error) {
	if v, err := strconv.ParseInt(s, 0, 64); err == nil {
		return v, nil
	}
	v, err := strconv.ParseFloat(s, 64)
	switch {
	case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
		return 0, fmt.Errorf("%q is not a number (write 3000000000 or 3e9)", s)
	case v != math.Trunc(v):
		return 0, fmt.Errorf("%q is not a whole number", s)
	case v >= 1<<63 || v < -(1<<63):
		return 0, fmt.Errorf("%q is out of range", s)
	}
	return int64(v), nil
}

type wholeValue int64

func (v *wholeValue) Set(s string) error {
	n, err := ParseWhole(s)
	if err != nil {
		return err
	}
	*v = wholeValue(n)
	return nil
}

func (v *wholeValue) String() string { return strconv.FormatInt(int64(*v), 10) }

type intValue int

func (v *intValue) Set(s string) error {
	n, err := ParseWhole(s)
	if err != nil {
		return err
	}
	if int64(int(n)) != n {
		return fmt.Errorf("%q is out of range", s)
	}
	*v = intValue(n)
	return nil
}

func (v *intValue) String() string { return strconv.Itoa(int(*v)) }
