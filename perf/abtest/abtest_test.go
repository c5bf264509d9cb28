package abtest

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestJudgeThresholds(t *testing.T) {
	for _, tc := range []struct {
		faster, slower int
		alpha          float64
		want           Verdict
	}{
		{17, 3, 0.01, Faster},    // p = 0.0026
		{16, 4, 0.01, NotStable}, // p = 0.0118 > 0.01
		{16, 4, 0.05, Faster},    // the same rounds at a looser level
		{3, 17, 0.01, Slower},    // B loses
		{4, 16, 0.01, NotStable}, // loses, but not significantly
		{10, 10, 0.5, NotStable}, // an even split never settles
		{8, 0, 0.01, Faster},     // p = 2/256 = 0.0078
		{7, 0, 0.01, NotStable},  // p = 2/128 = 0.0156: seven rounds cannot reach 0.01
		{0, 8, 0.01, Slower},
	} {
		if got, p := Judge(tc.faster, tc.slower, tc.alpha); got != tc.want {
			t.Errorf("Judge(%d, %d, %v) = %q (p = %.4g), want %q", tc.faster, tc.slower, tc.alpha, got, p, tc.want)
		}
	}
	if got := MinRounds(0.01); got != 8 {
		t.Errorf("MinRounds(0.01) = %d, want 8 (2/2^8 <= 0.01 < 2/2^7)", got)
	}
	if got := MinRounds(0.05); got != 6 {
		t.Errorf("MinRounds(0.05) = %d, want 6 (2/2^6 <= 0.05 < 2/2^5)", got)
	}
}

// spin busy-waits for d, a call whose cost the test controls.
func spin(d time.Duration) func() error {
	return func() error {
		for start := time.Now(); time.Since(start) < d; {
		}
		return nil
	}
}

// TestRunInterleaves: calibration runs A then B, then the rounds alternate which arm goes
// first, and every sample runs inside its arm's Enter/leave.
func TestRunInterleaves(t *testing.T) {
	var log []string
	arm := func(name string) Arm {
		inside := false
		return Arm{Name: name,
			Enter: func() func() {
				log = append(log, name)
				inside = true
				return func() { inside = false }
			},
			Call: func() error {
				if !inside {
					return errors.New(name + " called outside its arm")
				}
				return spin(time.Microsecond)()
			}}
	}
	res, err := Run(Trial{A: arm("A"), B: arm("B"), Equal: func() error { return nil },
		Rounds: 8, Target: 100 * time.Microsecond, Alpha: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	want := "A B A B B A A B B A A B B A A B B A" // calibration, then rounds 0..7
	if got := strings.Join(log, " "); got != want {
		t.Errorf("arm order %q, want %q", got, want)
	}
	if n := res.BFaster + res.BSlower + res.Ties; n != 8 || len(res.SecondsA) != 8 || len(res.SecondsB) != 8 {
		t.Errorf("%d signs, %d and %d times for 8 rounds", n, len(res.SecondsA), len(res.SecondsB))
	}
}

// TestRunVerdict: an arm two hundred times cheaper wins its rounds, whatever the machine's
// noise does to batches of a millisecond. The margin is that wide because the arms spin on
// wall time: on a shared machine (load 20 on 2 cores) a batch of the fast arm can be
// descheduled for tens of milliseconds, which at twenty times cheaper lost it two rounds in
// ten; losing one now takes a stall of 200 ms inside a 1 ms batch.
func TestRunVerdict(t *testing.T) {
	slow, fast := Arm{Name: "slow", Call: spin(2 * time.Millisecond)}, Arm{Name: "fast", Call: spin(10 * time.Microsecond)}
	for _, tc := range []struct {
		a, b Arm
		want Verdict
	}{{slow, fast, Faster}, {fast, slow, Slower}} {
		res, err := Run(Trial{A: tc.a, B: tc.b, Equal: func() error { return nil }, Rounds: 10, Target: time.Millisecond, Alpha: 0.05})
		if err != nil {
			t.Fatal(err)
		}
		if res.Verdict != tc.want {
			t.Errorf("B %s vs A %s: %q (%d faster, %d slower, p %.3g), want %q", tc.b.Name, tc.a.Name, res.Verdict, res.BFaster, res.BSlower, res.P, tc.want)
		}
	}
}

func TestRunRefuses(t *testing.T) {
	calls := 0
	counted := Arm{Name: "counted", Call: func() error { calls++; return nil }}
	differ := errors.New("outputs differ")
	base := Trial{A: counted, B: counted, Equal: func() error { return differ }, Rounds: 20, Target: time.Millisecond, Alpha: 0.01}
	if _, err := Run(base); !errors.Is(err, differ) || calls != 0 {
		t.Errorf("unequal arms: err %v after %d calls; want the equality error before any call", err, calls)
	}
	for _, tc := range []struct {
		mod  func(*Trial)
		want string
	}{
		{func(tr *Trial) { tr.Rounds = 7 }, "use at least 8"},
		{func(tr *Trial) { tr.Equal = nil }, "no equality check"},
		{func(tr *Trial) { tr.Alpha = 0 }, "alpha"},
		{func(tr *Trial) { tr.Target = 0 }, "target"},
		{func(tr *Trial) { tr.B.Call = nil }, "Call"},
	} {
		tr := base
		tr.Equal = func() error { return nil }
		tc.mod(&tr)
		if _, err := Run(tr); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run: %v, want an error containing %q", err, tc.want)
		}
	}
	if calls != 0 {
		t.Errorf("%d calls timed by refused trials", calls)
	}
}
