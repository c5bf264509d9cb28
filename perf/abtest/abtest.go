// Package abtest compares two implementations of one op the way a noisy, shared machine
// allows: equality first (a faster arm computing something else is not an arm), then N
// rounds that time both arms back to back in alternating order, then a sign test on the
// paired results. The verdict is "faster", "slower" or "not stable", never an average: on a
// machine whose timings swing by tens of percent the ordering of a pair is trustworthy long
// before the size of the difference is (reference/kernel-ab-probe.rs.txt).
package abtest

import (
	"errors"
	"fmt"
	"time"

	"github.com/ropgen/ropgen/perf/bench"
	"github.com/ropgen/ropgen/perf/stats"
)

// Arm is one of the two implementations.
type Arm struct {
	Name string
	// Enter switches the process to this arm (a GOMAXPROCS setting, a kernel variant) and
	// returns the function that switches back; nil when the arm needs no switch. It is
	// called outside the timed batches.
	Enter func() (leave func())
	// Call runs the arm once: what is timed.
	Call func() error
}

// Trial is one A/B comparison.
type Trial struct {
	A, B Arm
	// Equal runs both arms and returns an error unless their results agree; it runs before
	// any timing and a failure stops the trial.
	Equal func() error
	// Rounds is the number of paired measurements.
	Rounds int
	// Target is how long one timed batch of calls lasts at least (bench.BatchSize).
	Target time.Duration
	// Alpha is the significance level of the sign test: a verdict other than NotStable
	// needs a two-sided p-value at most Alpha.
	Alpha float64
}

// Verdict is what a trial says about B against A.
type Verdict string

// The verdicts.
const (
	Faster    Verdict = "faster"     // B is faster than A in significantly more rounds than not
	Slower    Verdict = "slower"     // B is slower than A in significantly more rounds than not
	NotStable Verdict = "not stable" // the signs do not settle at Alpha: refuse rather than average
)

// Result is a finished trial.
type Result struct {
	A, B string
	// CallsA and CallsB are the calls per timed batch of each arm.
	CallsA, CallsB int
	// SecondsA and SecondsB hold each round's time per call.
	SecondsA, SecondsB []float64
	// BFaster, BSlower and Ties count the rounds by sign.
	BFaster, BSlower, Ties int
	// P is the two-sided exact sign test p-value; Alpha the level it was judged at.
	P, Alpha float64
	Verdict  Verdict
}

// Judge returns the verdict on B from the rounds B won and lost, and the sign test p-value.
func Judge(bFaster, bSlower int, alpha float64) (Verdict, float64) {
	p := stats.SignTest(bFaster, bSlower)
	switch {
	case p > alpha:
		return NotStable, p
	case bFaster > bSlower:
		return Faster, p
	}
	return Slower, p
}

// MinRounds is the fewest rounds whose most lopsided outcome (all won, p = 2^(1-n)) reaches
// alpha: with fewer, the trial could only ever say NotStable.
func MinRounds(alpha float64) int {
	n := 1
	for stats.SignTest(n, 0) > alpha {
		n++
	}
	return n
}

func (t Trial) check() error {
	switch {
	case t.A.Call == nil || t.B.Call == nil:
		return errors.New("abtest: both arms need a Call")
	case t.Equal == nil:
		return errors.New("abtest: no equality check: a faster arm computing something else is not an arm")
	case t.Target <= 0:
		return errors.New("abtest: the target duration of a batch must be positive")
	case !(t.Alpha > 0 && t.Alpha < 1):
		return fmt.Errorf("abtest: alpha %v must be in (0, 1)", t.Alpha)
	case t.Rounds < MinRounds(t.Alpha):
		return fmt.Errorf("abtest: %d rounds can never reach p <= %v (even %d wins of %d give p = %.3g): use at least %d",
			t.Rounds, t.Alpha, t.Rounds, t.Rounds, stats.SignTest(t.Rounds, 0), MinRounds(t.Alpha))
	}
	return nil
}

// within runs f with the process switched to arm.
func within(arm Arm, f func() error) error {
	if arm.Enter != nil {
		leave := arm.Enter()
		defer leave()
	}
	return f()
}

// Run checks equality, calibrates each arm's batch (its calibration is its warm-up), then
// times Rounds rounds, A first in even rounds and B first in odd ones, so that neither arm
// always runs on the caches and clocks the other left behind.
func Run(t Trial) (*Result, error) {
	if err := t.check(); err != nil {
		return nil, err
	}
	if err := t.Equal(); err != nil {
		return nil, fmt.Errorf("abtest: %s and %s disagree, nothing timed: %w", t.A.Name, t.B.Name, err)
	}
	r := &Result{A: t.A.Name, B: t.B.Name, Alpha: t.Alpha,
		SecondsA: make([]float64, t.Rounds), SecondsB: make([]float64, t.Rounds)}
	for _, c := range []struct {
		arm   Arm
		calls *int
	}{{t.A, &r.CallsA}, {t.B, &r.CallsB}} {
		err := within(c.arm, func() (err error) {
			*c.calls, err = bench.BatchSize(c.arm.Call, t.Target)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("abtest: %s: %w", c.arm.Name, err)
		}
	}
	sample := func(arm Arm, calls int, dst *float64) error {
		return within(arm, func() (err error) {
			*dst, err = bench.WarmSample(arm.Call, calls)
			return err
		})
	}
	for i := range t.Rounds {
		first, second := func() error { return sample(t.A, r.CallsA, &r.SecondsA[i]) }, func() error { return sample(t.B, r.CallsB, &r.SecondsB[i]) }
		if i%2 == 1 {
			first, second = second, first
		}
		if err := first(); err != nil {
			return nil, err
		}
		if err := second(); err != nil {
			return nil, err
		}
		switch a, b := r.SecondsA[i], r.SecondsB[i]; {
		case b < a:
			r.BFaster++
		case b > a:
			r.BSlower++
		default:
			r.Ties++
		}
	}
	r.Verdict, r.P = Judge(r.BFaster, r.BSlower, t.Alpha)
	return r, nil
}
