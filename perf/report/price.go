// Package report prices benchmark records against a device profile: the speed-of-light
// report of docs/model.md §1, §5 and §6. It reads numbers only (time, flops, bytes, roof key,
// device name from the records; ceilings from the profile) and never instantiates an op or
// evaluates a formula.
package report

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/record"
	"github.com/ropgen/ropgen/perf/roofline"
)

// Verdict thresholds on efficiency (docs/model.md §5.1). They are rendering lines, not gates: the
// HBM ceiling is an envelope over access mixes, so a perfect kernel of one mix sits somewhat below
// 100%, and only a formula or calibration error goes above 105%.
const (
	AtCeilingMin = 0.80
	AnomalyAbove = 1.05
)

// The same-time physics check: a DRAM-sized cold row carries a same-time reference
// (record.RefRate), the rate of one of the calibration's cold mixes (profiles.RefPattern)
// paired with the row's samples, one cold call of it timed right after every sample,
// dispatched and evicted as the row is, so whatever load slowed the row slowed the reference
// alike. Medians, not fastest samples: on a shared machine one cold call in a few runs far
// faster than the others, and a row gets such a call in some runs and not in others.
//
// The line is derived from the profile, not fitted to any kernel (SameTimeLine): at the
// load the reference saw, no correct kernel moves bytes faster than the fastest pattern the
// calibration measured (the DRAM envelope), so its rate over the reference stays under the
// envelope over the reference mix's own calibrated rate, times one plus the reference mix's
// spread between calls (how far one median of it can sit from another on this machine).
// A row above the line implies more bytes than the machine could have moved: its formula
// counts too many. What the check cannot convict is in docs/report.md: any undercount, and
// an overcount by k on a kernel that ran below line/k of the reference. The bytes audit
// (`audit` of a module's bench command, docs/audit.md) convicts both.

// SameTimeLine returns the line of the same-time physics check on prof: a row whose byte
// rate (bytes / its median sample) is above line times its same-time reference is a formula
// error. It is envelope / m × (1 + min(spread, SameTimeSpreadCap)), where m is the
// calibrated rate of the reference's pattern (profiles.RefSpread), envelope the best
// calibrated mix, and spread that pattern's (max − min) / median over the calibration's
// calls. ok is false when the profile measured no reference pattern: then no line can be
// derived and the check does not run.
func SameTimeLine(prof *profiles.Profile) (line float64, ok bool) {
	if prof == nil {
		return 0, false
	}
	ref, _ := prof.RefSpread()
	m := prof.MixFractions[ref]
	if m <= 0 {
		return 0, false
	}
	env := max(m, prof.HBM.Calibration)
	for _, f := range prof.MixFractions {
		env = max(env, f)
	}
	return env / m * (1 + min(prof.MixSpreads[ref].Rel(), SameTimeSpreadCap)), true
}

// SameTimeSpreadCap bounds the spread that widens the same-time line, so the line is at most
// sqrt(2) times the envelope over the reference. A row whose formula doubles its bytes reads
// exactly twice the correct row's ratio to the reference, and sqrt(2) is the point as far
// (as a ratio) from the one as from the other: a correct row at the envelope is convicted only
// if its median beats the reference's by 41%, a doubled one missed only if it ran 29% below
// it. The spread is (max - min) / median of single calls, and one stalled call of a
// calibration (a round at a fifth of the median) would otherwise lift the line above any
// doubled row.
const SameTimeSpreadCap = math.Sqrt2 - 1

// SameTimeFactor is how fast the machine streamed while a row with same-time reference
// refRate (record.RefRate) ran, as a fraction of the best the calibration saw of the same
// pattern: refRate over the calibrated best of the reference pattern (profiles.RefSpread,
// the pattern the benchmark pairs). The envelope that prices a row is a best (the fastest of many cold calls), while
// a row's efficiency is its median over a few: on a shared machine a perfect kernel's typical
// call sits below the best call the calibration caught, by however much that machine's
// calls spread, and the machine's memory bandwidth moves from minute to minute besides
// (docs/history.md has the runs). refRate pairs one cold call of the same kernels, on the
// same sizes, after the same eviction, with each of the row's samples: the factor
// scales the envelope to what the machine typically streamed at while the row ran, so the
// verdict compares a median with a median. ok is false when prof measured no reference
// pattern or refRate is 0.
func SameTimeFactor(prof *profiles.Profile, refRate float64) (factor float64, ok bool) {
	b := refSpread(prof).Max
	if b <= 0 || refRate <= 0 {
		return 0, false
	}
	return refRate / b, true
}

// refSpread is the calibrated spread of prof's same-time reference pattern
// (profiles.RefSpread): its Max is the best round SameTimeFactor divides by; the zero Spread
// when prof measured none.
func refSpread(prof *profiles.Profile) profiles.Spread {
	_, s := prof.RefSpread()
	return s
}

// Contention is a same-time reference that ran off the calibration's typical rate of its
// pattern by more than the drift tolerance (driftTolerance of the pattern's calibrated
// spread and the reference's own interval): a burst of load on the memory while the row
// ran. The factor then over-corrects a row with arithmetic in it, which the burst slows less
// than the pure stream of the reference (docs/history.md), so the row's judged interval is
// widened to hold its efficiency on the profile as well: the truth lies between the row
// untouched by the burst and the row slowed as much as the reference. Off is the relative
// distance (RefRate / median - 1), Tolerance the limit it passed.
type Contention struct{ Off, Tolerance float64 }

// contention returns the Contention of rec's same-time reference on prof, or ok false when
// the reference stayed within the tolerance (or prof measured no reference pattern).
func contention(prof *profiles.Profile, rec *record.Record) (c Contention, ok bool) {
	s := refSpread(prof)
	if !s.Measured() || s.Median <= 0 || rec.RefRate <= 0 {
		return c, false
	}
	own := 0.0
	if rec.RefRateLow > 0 && rec.RefRateHigh > rec.RefRateLow {
		own = (rec.RefRateHigh - rec.RefRateLow) / rec.RefRate
	}
	c = Contention{Off: rec.RefRate/s.Median - 1, Tolerance: driftTolerance(s.Rel(), own)}
	return c, math.Abs(c.Off) > c.Tolerance
}

// MachineOff is how far the machine was, while rec ran, from the state prof's calibration
// typically found it in: the larger of |ln| of its same-time reference over the reference
// pattern's calibrated median and of its compute probe over the probe roof's calibrated
// median; 0 when it has neither (or prof measured neither). Both readings of a memory-bound
// row coincide, and the probe widens nothing, where the machine was at its typical state:
// of two looks at a row, the one with the smaller MachineOff is the one its references say
// was quieter (bench.Settle.Revisit), whatever the row's own times.
func MachineOff(prof *profiles.Profile, rec *record.Record) float64 {
	off := 0.0
	if s := refSpread(prof); s.Median > 0 && rec.RefRate > 0 {
		off = math.Abs(math.Log(rec.RefRate / s.Median))
	}
	if c, ok := prof.Roof(profiles.ProbeKey); ok && c.Spread.Median > 0 && rec.ProbeRate > 0 {
		off = max(off, math.Abs(math.Log(rec.ProbeRate/c.Spread.Median)))
	}
	return off
}

// lineTolerance is the relative slack of the verdict lines: times and ceilings come as
// decimals, so a row exactly on a line in decimal (1.2 ms of SOL in 1.5 ms) can land an ulp
// below it in binary, and must still read as on it.
const lineTolerance = 1e-12

// Bound is the term that dominates a row's SOL time: roofline.MemoryBound or
// roofline.ComputeBound, or "" when the row has no SOL time. There is one bound type, the
// roofline package's, for the report and for predictions alike.
type Bound = roofline.Bound

// The bounds; Unknown when the row has no SOL time.
const (
	Unknown Bound = ""
	Memory        = roofline.MemoryBound
	Compute       = roofline.ComputeBound
)

// Verdict is how a row reads against its ceiling.
type Verdict string

// The verdicts, in the precedence Pricer.Price applies when several hold.
const (
	// FormulaError: the row implies a byte or FLOP rate above a theoretical ceiling, which is
	// physically impossible, or a byte rate well above what the machine's fastest streaming
	// pattern could have moved at the same time (SameTimeLine); the record's flops/bytes or its roof
	// key is wrong.
	FormulaError Verdict = "formula error"
	// LatencyBound: the SOL time is below the cold-call floor (what dispatch and first touch
	// cost a call timed cold, see Pricer.Floor): even a kernel at the roofline would spend
	// most of its call on them, so the efficiency says nothing about the kernel.
	LatencyBound Verdict = "latency-bound"
	// Anomaly: the whole spread is above AnomalyAbove (the judged efficiency of the slowest
	// sample too); the formula or the calibration is wrong.
	Anomaly Verdict = "anomaly"
	// AtCeiling: the judged efficiency (Row.Judged: the median sample's, against the machine
	// as the same-time reference found it) is at AtCeilingMin or above, and not an anomaly;
	// done.
	AtCeiling Verdict = "at ceiling"
	// AtLine: the judged efficiency's interval (Row.JudgedLow to JudgedHigh: the median's
	// 99% interval, from the record's same-time reference) holds AtCeilingMin: its samples
	// cannot tell which side of the line the row is on. Only a row whose record carries the
	// interval can read so; more samples (ropbench -max-samples) narrow it.
	AtLine Verdict = "at the line"
	// Inconclusive: the row's own samples put it on one side of AtCeilingMin, but what the
	// run knows of the machine while it ran does not: its judged interval, widened by that
	// (Row.Unsure says how), holds the line. The machine computed slower than calibrated
	// (the compute probe), a burst slowed its same-time reference (Contention), its run's
	// copy reference drifted off the profile and it has no same-time reference of its own,
	// or the profile was measured under load (profiles.Conditions.Refused). A quieter run
	// settles it.
	Inconclusive Verdict = "inconclusive"
	// Below: priced, and the judged efficiency is below AtCeilingMin.
	Below Verdict = "below"
	// None: no efficiency to judge.
	None Verdict = ""
)

// Notes say why a row's cells are blank. Pricer.Price sets the first cause that applies, in this
// order; the no-profile and unknown-ceiling notes are built once per device and roof key.
const (
	NoteZeroBytes = "bytes is zero: the model cannot price this row"
	NoteNoTime    = "no measured time: efficiency blank"
	// NoteAnomaly says what to do about an anomaly: it is faster than the ceiling allows,
	// so the ceiling is too low or the formula counts bytes the kernel never moves.
	NoteAnomaly = "above the calibrated ceiling: recalibrate (ropgen calibrate), or audit the bytes (ropgen audit)"
)

// SOL is what the roofline model says about one piece of work (flops and bytes on a roof
// key) against one profile's ceilings, before anything is measured: the one pricing core that
// the report's rows and the predictions (perf/bench.Predict) are both built on. Times are in
// seconds, rates per second; a blank cell is NaN (see Blank), never a guess.
type SOL struct {
	Bandwidth   float64 // the memory ceiling that priced the work; NaN when none
	Peak        float64 // the compute ceiling of the roof key; NaN when none
	Intensity   float64 // flops / bytes
	Ridge       float64 // Peak / Bandwidth: the intensity where the two roofs meet
	MemoryTime  float64 // bytes / Bandwidth
	ComputeTime float64 // flops / Peak (0 for no flops, on any ceiling)
	SOLTime     float64 // max(MemoryTime, ComputeTime)
	Attainable  float64 // FLOP/s the roofline allows at Intensity: min(Peak, Bandwidth × Intensity)
	PeakShare   float64 // Attainable / Peak, in [0, 1]
	Bound       Bound
	// PricedRoof is the compute roof key that priced the work: the work's own, or on a CPU
	// profile the fp32 pipes that compute a bf16/fp16 roof the CPU has no pipes for (see
	// RoofFor).
	PricedRoof string
	// CacheLevel is the smallest cache level ("l1", "l2", "l3") whose size holds the work's
	// bytes, "" when none does or the profile has no cache roofs; CacheTime is the SOL time
	// with that level's bandwidth in place of DRAM's: max(bytes / cache bandwidth,
	// ComputeTime). A price beyond the model (the cache-aware roofline); SOLTime, on DRAM,
	// stays the headline.
	CacheLevel string
	CacheTime  float64
	// Note says why cells are blank ("" when none are), or how the work was priced.
	Note string
}

// blankSOL is a SOL with every cell blank.
func blankSOL() SOL {
	return SOL{Bandwidth: blank, Peak: blank, Intensity: blank, Ridge: blank, MemoryTime: blank,
		ComputeTime: blank, SOLTime: blank, Attainable: blank, PeakShare: blank, CacheTime: blank}
}

// Row is one priced record: its SOL and what the measured time says against it.
type Row struct {
	Rec     *record.Record
	Profile *profiles.Profile // nil when no profile prices the record's device

	SOL
	Efficiency float64 // SOLTime / measured time (the median sample)
	// EffLow and EffHigh are the efficiency of the slowest and of the fastest sample: the
	// row's spread.
	EffLow, EffHigh float64
	// Machine is how fast the machine streamed while the row ran, as a fraction of the
	// calibration's best: the row's same-time reference over the calibrated best of the same
	// reference pattern (SameTimeFactor). NaN when the row has no reference, is not
	// memory-bound, or the profile measured no reference pattern. The verdict lines judge
	// the efficiency over it (Judged).
	Machine float64
	// Judged is the efficiency the verdict lines judge: Efficiency over Machine where the row
	// has one, else Efficiency.
	Judged float64
	// JudgedLow and JudgedHigh bound Judged's interval: the judged efficiency at the
	// record's RefRateHigh and RefRateLow. NaN when the record has no interval or the row
	// has no Machine.
	JudgedLow, JudgedHigh float64
	// CacheEfficiency is CacheTime / measured time.
	CacheEfficiency float64
	ByteRate        float64 // implied bytes / measured time
	FlopRate        float64 // implied flops / measured time
	// PeakByteRate and PeakFlopRate are implied by the fastest sample: the physics check
	// compares them with the theoretical ceilings.
	PeakByteRate, PeakFlopRate float64
	// RefRate is the record's same-time reference (bytes/s) and RefRatio ByteRate over it:
	// the figure the same-time physics check compares with RefLine (SameTimeLine of the
	// profile; 0 when it has none). RefRate and RefRatio are NaN when the record has no
	// reference.
	RefRate, RefRatio, RefLine float64
	// Floor is the cold-call floor the latency rule compared the SOL time with; NaN when
	// there is none.
	Floor   float64
	Verdict Verdict
	// ByteBreach and FlopBreach mark implied rates above the theoretical HBM and roof ceilings.
	ByteBreach, FlopBreach bool
	// RefBreach marks an implied byte rate above RefLine times the same-time reference across
	// the reference's 99% interval: at its median and at its high bound (RefRateHigh).
	// RefUnsure marks one above it at the median only: the check cannot tell a formula
	// error from the load, and the row reads inconclusive (more samples narrow it).
	RefBreach, RefUnsure bool
	// Drift is the drifted copy reference of the row's run, nil when none drifted: the row
	// is unpriced, or with Pricer.PriceDrifted priced under drift.
	Drift *Drift
	// Contention is set when the row's same-time reference ran off its calibrated rate by
	// more than the drift tolerance; JudgedLow and JudgedHigh then hold Efficiency too.
	Contention *Contention
	// Probe is how fast the machine computed while the row ran, as a fraction of the
	// calibration's best: the record's same-time compute probe (record.ProbeRate) over the
	// profile's best round of the probe's roof (calibrate.ProbeKey); ProbeLow and ProbeHigh
	// from its interval. NaN when the record has none or the profile did not measure that
	// roof. A compute-bound row is judged against it (Judged = Efficiency / Probe); a
	// memory-bound row's interval is widened by it when the machine computed slower than
	// its calibration for certain (see Unsure).
	Probe, ProbeLow, ProbeHigh float64
	// Unsure says what widened the row's judged interval beyond its samples' own: the
	// load its references saw, a drifted run, a profile measured under load; "" when
	// nothing did. The verdict is Inconclusive when only the widened interval holds the line.
	Unsure string
	// Past is the row's judged efficiency over the earlier runs of its device that the
	// history holds (Pricer.Past); zero when none was given. Its range widens the interval
	// that decides "at the line": a row whose runs fall on both sides of the line is at it,
	// whatever one run's samples say.
	Past Past
	// Audit is the bytes audit's verdict on the row's formula ("PASS", "WARN" or "FAIL"),
	// "" when no audit judged it: set by ropgen report -audit, so the summaries can say how
	// many ranked rows' formulas were ever checked against the traffic measured.
	Audit string
}

// Blank reports whether a cell has no value.
func Blank(v float64) bool { return math.IsNaN(v) }

var blank = math.NaN()

// Pricer prices records against profiles. It caches the profile of each device name and the
// ceilings of each roof key, so pricing a row is a few map lookups and divisions.
type Pricer struct {
	fixed      *profiles.Profile
	candidates []*profiles.Profile
	basis      profiles.Basis
	devices    map[string]*device
	order      []*device // devices in the order met
	last       *device   // the device of the previous row: records come grouped by device
	// PriceDrifted prices the rows of a run whose copy reference drifted off the profile
	// anyway, marked (Row.Drift), instead of leaving them unpriced.
	PriceDrifted bool
	// Past, when set, returns a row's judged efficiency over the earlier runs of its device
	// (the history store's PastOf): the verdict of a row judged on the device's own rows
	// then holds across runs, not only within this one (Row.Past).
	Past func(device string, key RowKey) (Past, bool)
}

// Past is a row's judged efficiency (Row.Judged) over earlier runs of its device: the
// lowest and highest, and over how many runs; and its rate over its same-time reference
// (Row.RefRatio) in those of them where that reference ran within its calibrated spread
// (no Contention): the lowest and highest, over RatioRuns runs.
type Past struct {
	Low, High           float64
	Runs                int
	RatioLow, RatioHigh float64
	RatioRuns           int
}

// followed reports whether the row's quiet runs show that it slowed as its same-time
// reference did in this run, typical being the calibration's typical machine over its best
// (the reference pattern's median round over its best): its rate over the reference is
// within its quiet runs' (pastConfirms), and outside where a row the machine's speed does
// not touch would have put it (its quiet ratios moved by the machine's speed now against the
// typical one, typical / Machine). Where the machine ran near its typical speed the two
// readings coincide and nothing is shown.
func followed(row *Row, typical float64) bool {
	if !pastConfirms(row) || Blank(row.Machine) || row.Machine <= 0 {
		return false
	}
	f := typical / row.Machine
	return row.RefRatio < row.Past.RatioLow*f || row.RefRatio > row.Past.RatioHigh*f
}

// minRatioRuns is how many earlier runs' same-time ratios a row needs before a run under
// contention is judged on its own (pastConfirms): fewer span too little of the row's
// run-to-run spread to say its reference and it slowed alike.
const minRatioRuns = 3

// pastConfirms reports whether a row under contention (its same-time reference far off its
// calibrated rate) measured against that reference what it measured in its quiet runs: its
// rate over the reference within theirs. The load then slowed the reference and the row
// alike, and the paired ratio, the one figure contention does not move, carries the verdict;
// a row whose ratio moved (a burst that caught the reference and not the row, or a kernel
// that changed) stays widened to its efficiency on the profile.
func pastConfirms(row *Row) bool {
	p := row.Past
	return p.RatioRuns >= minRatioRuns && !Blank(row.RefRatio) && row.RefRatio >= p.RatioLow && row.RefRatio <= p.RatioHigh
}

// withinPast is the clause a note gives where pastConfirms holds: the row's rate over its
// same-time reference and the range of its quiet runs' that holds it.
func (row *Row) withinPast() string {
	return fmt.Sprintf("its rate over its same-time reference (%sx) is within its %d quiet runs' (%s-%sx)",
		Times(row.RefRatio), row.Past.RatioRuns, Times(row.Past.RatioLow), Times(row.Past.RatioHigh))
}

// device is what a device name resolves to.
type device struct {
	name  string
	prof  *profiles.Profile
	err   error   // no match, or several: every SOL cell of its rows is blank
	note  string  // err's text, formatted once: the note of each of its rows
	hbm   float64 // the HBM ceiling on the pricing basis; 0 when none
	hbmNo string  // why there is no HBM ceiling
	roofs map[string]*roof
	// caches are the profile's cache roofs with a value on the basis, smallest first.
	caches []cacheRoof
	// floor is the profile's latency floor, 0 when it has none; floors the largest ref.floor
	// time of each implementation whose records have one (floorOf).
	floor  float64
	floors map[string]float64
	refs   []*record.Record // the ref.copy records, in the order met
	// sameTime is SameTimeLine of the profile; 0 when it has none.
	sameTime float64
	// probeBest is the profile's best round of the compute probe's roof and probeTol the
	// relative spread of its rounds (ProbeFactor); probeBest is 0 when it has none.
	probeBest, probeTol float64
	// loaded is the profile's refusal: it was measured under load, so its calibrated
	// figures are lower bounds and its estimated theoretical ceilings too low to convict.
	loaded bool
}

// cacheRoof is a cache level resolved on one profile.
type cacheRoof struct {
	key   string
	bw    float64
	bytes int64
}

// roof is a compute roof key resolved on one profile.
type roof struct {
	key         string  // the key that prices it (RoofFor)
	peak        float64 // ceiling on the pricing basis; 0 when none
	theoretical float64 // for the physics check; 0 when the profile lacks the key
	estimate    bool    // theoretical is a stated estimate (profiles.Ceiling.Estimate)
	why         string  // why peak is none
	note        string  // how the key was substituted, or ""
}

// NewPricer returns a pricer. With fixed set, every record is priced against it, whatever its
// device; otherwise each record's device name selects one of candidates (profiles.Match). An
// empty basis means profiles.Effective, the model's pricing (docs/model.md §4.1).
func NewPricer(fixed *profiles.Profile, candidates []*profiles.Profile, basis profiles.Basis) *Pricer {
	if basis == "" {
		basis = profiles.Effective
	}
	return &Pricer{fixed: fixed, candidates: candidates, basis: basis, devices: map[string]*device{}}
}

// Basis returns the basis the pricer prices on.
func (p *Pricer) Basis() profiles.Basis { return p.basis }

// DeviceMatch is a device name met in the records and what priced it.
type DeviceMatch struct {
	Device  string
	Profile *profiles.Profile // nil when none priced it
	Err     error             // why no profile priced it (no match, or several)
}

// Devices returns each device name met so far, in the order met.
func (p *Pricer) Devices() []DeviceMatch {
	ms := make([]DeviceMatch, len(p.order))
	for i, d := range p.order {
		ms[i] = DeviceMatch{d.name, d.prof, d.err}
	}
	return ms
}

func (p *Pricer) device(name string) *device {
	if p.last != nil && p.last.name == name {
		return p.last
	}
	d, ok := p.devices[name]
	if !ok {
		d = &device{name: name, roofs: map[string]*roof{}}
		d.prof = p.fixed
		if d.prof == nil {
			if d.prof, d.err = profiles.Match(name, p.candidates); d.err != nil {
				d.note = d.err.Error()
			}
		}
		if d.prof != nil {
			d.hbm, _ = d.prof.Resolve(profiles.HBMKey, p.basis)
			d.hbmNo = d.prof.Why(profiles.HBMKey, p.basis)
			d.floor = d.prof.LatencyFloor
			d.sameTime, _ = SameTimeLine(d.prof)
			d.probeBest, d.probeTol = probeCeiling(d.prof)
			d.loaded = d.prof.Measured.Loaded()
			for _, c := range d.prof.Caches {
				if v, ok := c.Value(p.basis); ok && c.Bytes > 0 {
					d.caches = append(d.caches, cacheRoof{c.Key, v, c.Bytes})
				}
			}
			slices.SortStableFunc(d.caches, func(a, b cacheRoof) int { return cmp.Compare(a.bytes, b.bytes) })
		}
		p.devices[name] = d
		p.order = append(p.order, d)
	}
	p.last = d
	return d
}

func (d *device) roof(key string, basis profiles.Basis) *roof {
	r, ok := d.roofs[key]
	if !ok {
		r = &roof{}
		r.key, r.note = RoofFor(d.prof, key)
		r.peak, _ = d.prof.Resolve(r.key, basis)
		r.why = d.prof.Why(r.key, basis)
		if c, ok := d.prof.Roof(r.key); ok {
			r.theoretical, r.estimate = c.Theoretical, c.Estimate
		}
		d.roofs[key] = r
	}
	return r
}

// RoofFor returns the roof key that prices work declared on key against prof, and a note
// when it is not key itself. On a CPU profile (device "cpu: ..."), a bf16 or fp16 roof the
// profile has no ceiling for is priced at the fp32 roof of the same unit (else vector.fp32):
// the CPU kernels store every tensor as float32 and compute on the fp32 FMA pipes, so those
// are the pipes that compute the row. The note quotes the profile's half_precision line (how
// this CPU computes bf16/fp16: conversion and the fp32 pipes, or instructions of its own that
// would raise the roof), or says so in general when the profile has none. A cube roof of
// another dtype the profile has no ceiling for (cube.fp64: a profile calibrated before it
// wrote that key) is priced at the vector roof of the same dtype: a CPU without a matrix
// unit for the dtype fills the matrix role with its SIMD unit (docs/model.md §3.4).
func RoofFor(prof *profiles.Profile, key string) (string, string) {
	if _, ok := prof.Roof(key); ok || !IsCPU(prof) {
		return key, ""
	}
	unit, dt, ok := strings.Cut(key, ".")
	if ok && unit == "cube" && dt != "bf16" && dt != "fp16" {
		if k := "vector." + dt; k != key {
			if _, ok := prof.Roof(k); ok {
				return k, fmt.Sprintf("%s priced at %s: this CPU has no %s matrix unit, and the SIMD unit of the dtype fills the matrix role", key, k, dt)
			}
		}
	}
	if !ok || (dt != "bf16" && dt != "fp16") {
		return key, ""
	}
	for _, k := range []string{unit + ".fp32", "vector.fp32"} {
		if _, ok := prof.Roof(k); ok {
			if prof.HalfPrecision != "" {
				return k, fmt.Sprintf("%s priced at %s: %s", key, k, prof.HalfPrecision)
			}
			return k, fmt.Sprintf("%s priced at %s: the CPU kernels compute %s on the fp32 FMA pipes (tensors stored as float32); bf16/fp16 instructions, where the CPU has them, would raise the roof", key, k, dt)
		}
	}
	return key, ""
}

// IsCPU reports whether prof describes a CPU host (its device name starts "cpu:", as
// profiles.HostDeviceName writes it): its memory roof is DRAM.
func IsCPU(prof *profiles.Profile) bool {
	return prof != nil && strings.HasPrefix(strings.ToLower(prof.Device), "cpu:")
}

// MemoryName is what the memory roof of prof is called in prose: the profile's own label
// (`memory:`), DRAM on any CPU profile, else HBM. The profile key stays "hbm" either way
// (docs/model.md §1.2).
func MemoryName(prof *profiles.Profile) string {
	switch {
	case IsCPU(prof):
		return "DRAM"
	case prof != nil && prof.MemoryLabel != "":
		return prof.MemoryLabel
	}
	return "HBM"
}

// PriceWork prices flops and bytes on the roof key roof against prof on basis: the core
// behind Pricer.Price and perf/bench.Predict, for work that was never run.
func PriceWork(prof *profiles.Profile, basis profiles.Basis, roof string, flops, bytes int64) SOL {
	return NewPricer(prof, nil, basis).Work(prof.Device, roof, flops, bytes)
}

// Work prices flops and bytes on roof key roof against the profile that prices device.
func (p *Pricer) Work(device, roof string, flops, bytes int64) SOL {
	d := p.device(device)
	if d.prof == nil {
		pr := blankSOL()
		pr.Note = d.note
		return pr
	}
	return d.price(d.roof(roof, p.basis), flops, bytes)
}

// price is the pricing core: the roofline of flops and bytes on one device's resolved
// ceilings.
func (d *device) price(r *roof, flops, bytes int64) SOL {
	pr := blankSOL()
	pr.PricedRoof = r.key
	f, b := float64(flops), float64(bytes)
	if bytes == 0 {
		pr.Note = NoteZeroBytes
		return pr
	}
	pr.Intensity = f / b
	if d.hbm == 0 {
		pr.Note = d.hbmNo
		return pr
	}
	pr.Bandwidth = d.hbm
	if r.peak > 0 {
		pr.Peak = r.peak
		pr.Ridge = roofline.Ridge(r.peak, d.hbm)
	}
	switch {
	case flops == 0:
		// No work to price: zero time on any ceiling, known or not.
		pr.ComputeTime, pr.MemoryTime = 0, b/d.hbm
	case r.peak > 0:
		pr.ComputeTime, pr.MemoryTime = roofline.TimeFloors(f, b, r.peak, d.hbm)
	default:
		// Without the compute time the SOL time is only bounded below by the memory time, so
		// neither it nor the bound can be stated: work whose compute ceiling is unknown
		// cannot claim to be memory-bound.
		pr.MemoryTime = b / d.hbm
		pr.Note = r.why
		return pr
	}
	pr.SOLTime, pr.Bound = pr.MemoryTime, Memory
	if pr.ComputeTime >= pr.MemoryTime {
		pr.SOLTime, pr.Bound = pr.ComputeTime, Compute
	}
	if r.peak > 0 {
		pr.Attainable = roofline.Attainable(pr.Intensity, r.peak, d.hbm)
		pr.PeakShare = pr.Attainable / r.peak
	}
	for _, c := range d.caches {
		if bytes <= c.bytes {
			pr.CacheLevel, pr.CacheTime = c.key, max(b/c.bw, pr.ComputeTime)
			break
		}
	}
	pr.Note = r.note
	return pr
}

// blankRow is rec's row with every cell blank.
func blankRow(rec *record.Record) Row {
	return Row{Rec: rec, SOL: blankSOL(), Efficiency: blank, EffLow: blank, EffHigh: blank, Machine: blank, Judged: blank, JudgedLow: blank, JudgedHigh: blank,
		CacheEfficiency: blank, ByteRate: blank, FlopRate: blank, PeakByteRate: blank, PeakFlopRate: blank,
		RefRate: blank, RefRatio: blank, Floor: blank, Probe: blank, ProbeLow: blank, ProbeHigh: blank}
}

// price prices rec against its device's profile, drift or not (Pricer.Price).
func (p *Pricer) price(rec *record.Record, drift *Drift) Row {
	row := blankRow(rec)
	d := p.device(rec.Device)
	if d.prof == nil {
		row.Note = d.note
		return row
	}
	row.Profile = d.prof
	r := d.roof(rec.Roof, p.basis)
	row.SOL = d.price(r, rec.Flops, rec.Bytes)
	secs := rec.Seconds
	fast, slow := rec.Spread()

	// The physics check needs only a time and the theoretical ceilings, so it runs even on
	// rows the model cannot otherwise price. It judges the row's fastest sample: no call can
	// move bytes or FLOPs faster than the hardware, so a correct formula stays under the
	// theoretical ceilings at every sample, while on a shared machine the median falls with
	// the load and would hide a formula error behind it (a doubled-bytes row is caught only
	// while the sample judged runs above half the theoretical ceiling). This holds only for
	// an envelope that bounds every sample of the catalog's kernels: the calibration's cold
	// mixes time them as ropbench times a row (one cold call after the same eviction; see
	// perf/calibrate): an envelope of warm passes alone is too low, single cold samples of
	// correct rows outrun it (docs/history.md). A true breach fails the run (docs/model.md §6).
	// A row with a same-time reference is also judged against it (SameTimeLine): that check
	// holds under load, where the fixed ceiling convicts only a row that ran fast.
	if secs > 0 {
		row.ByteRate, row.FlopRate = float64(rec.Bytes)/secs, float64(rec.Flops)/secs
		row.PeakByteRate, row.PeakFlopRate = float64(rec.Bytes)/fast, float64(rec.Flops)/fast
		// A profile measured under load estimated its theoretical ceilings from rounds the
		// load slowed: they may sit below the hardware, and a correct row's undisturbed
		// sample would breach them. Only the same-time line convicts on such a profile.
		row.ByteBreach = !(d.loaded && d.prof.HBM.Estimate) && row.PeakByteRate > d.prof.HBM.Theoretical
		row.FlopBreach = !(d.loaded && r.estimate) && r.theoretical > 0 && row.PeakFlopRate > r.theoretical
		if rec.RefRate > 0 {
			row.RefRate, row.RefRatio = rec.RefRate, row.ByteRate/rec.RefRate
			row.RefLine = d.sameTime
			// An accusation rests on the whole interval: on a busy machine the paired ratio of
			// a correct row can sit above the line at its median while its interval, as wide as
			// the load made it, reaches well below.
			low := row.RefRatio
			if rec.RefRateHigh > 0 {
				low = row.ByteRate / rec.RefRateHigh
			}
			row.RefBreach = d.sameTime > 0 && row.RefRatio > d.sameTime && low > d.sameTime
			row.RefUnsure = d.sameTime > 0 && row.RefRatio > d.sameTime && !row.RefBreach
		}
	}
	if row.ByteBreach || row.FlopBreach || row.RefBreach {
		row.Verdict = FormulaError
		row.Note = breachNote(&row, d.prof, r)
	}
	if Blank(row.SOLTime) {
		return row
	}
	if secs == 0 {
		row.setNote(NoteNoTime)
		return row
	}
	row.Efficiency = row.SOLTime / secs
	row.EffLow, row.EffHigh = row.SOLTime/slow, row.SOLTime/fast
	row.Judged = row.Efficiency
	if d.probeBest > 0 && rec.ProbeRate > 0 && d.prof.Matches(rec.Device) {
		row.Probe = rec.ProbeRate / d.probeBest
		row.ProbeLow, row.ProbeHigh = row.Probe, row.Probe
		if rec.ProbeRateLow > 0 {
			row.ProbeLow, row.ProbeHigh = rec.ProbeRateLow/d.probeBest, rec.ProbeRateHigh/d.probeBest
		}
	}
	if !Blank(row.Probe) && row.Bound == Compute {
		// The probe is the roof's own kind of work timed in the same moments: the row over
		// it is the row over the machine as it computed then, whatever slowed both.
		row.Judged = row.Efficiency / row.Probe
		row.JudgedLow, row.JudgedHigh = row.Efficiency/row.ProbeHigh, row.Efficiency/row.ProbeLow
	}
	if f, ok := SameTimeFactor(d.prof, rec.RefRate); ok && row.Bound == Memory {
		row.Machine = f
		row.Judged = row.Efficiency / f
		fHi, okHi := SameTimeFactor(d.prof, rec.RefRateHigh)
		fLo, okLo := SameTimeFactor(d.prof, rec.RefRateLow)
		if okHi && okLo {
			// The faster the machine streamed, the lower the judged efficiency.
			row.JudgedLow, row.JudgedHigh = row.Efficiency/fHi, row.Efficiency/fLo
		}
		if c, ok := contention(d.prof, rec); ok {
			row.Contention = &c
		}
	}
	if !Blank(row.CacheTime) {
		row.CacheEfficiency = row.CacheTime / secs
	}
	floor := d.floorOf(rec.ImplName())
	if floor > 0 {
		row.Floor = floor
	}
	if row.Verdict == FormulaError {
		return row
	}
	// An anomaly is judged on the profile's ceiling, relaxed only where the machine streamed
	// faster than the calibration's best while the row ran: the factor lifts a typical call
	// toward the best one, and an accusation must not rest on that lift.
	slowest := row.EffLow
	if !Blank(row.Machine) && row.Machine > 1 {
		slowest /= row.Machine
	}
	if !Blank(row.Probe) && row.Bound == Compute && row.Probe > 1 {
		slowest /= row.Probe
	}
	// The samples' own interval decides "at the line"; what the run saw of the machine
	// widens it into the interval that decides "inconclusive".
	lo, hi := row.JudgedLow, row.JudgedHigh
	var pastLine bool
	if p.Past != nil && rec.ImplName() == record.DefaultImpl && !Blank(row.Judged) {
		// A row's run-to-run spread is wider than one run's interval (the machine's memory
		// speed and the row's own move between runs, and no same-time reference sees the
		// row's own), so the line is judged over the runs the history holds too: a row read
		// on both sides of it in those runs is at the line, and a run never contradicts one
		// of its window.
		if past, ok := p.Past(rec.Device, KeyOf(rec)); ok && past.Runs > 0 {
			row.Past = past
			if Blank(lo) {
				lo, hi = row.Judged, row.Judged
			}
			pastLine = !holdsLine(lo, hi)
			lo, hi = min(lo, past.Low), max(hi, past.High)
			pastLine = pastLine && holdsLine(lo, hi)
		}
	}
	wlo, whi := lo, hi
	if Blank(wlo) {
		wlo, whi = row.Judged, row.Judged
	}
	var unsure []string
	widen := func(a, b float64, why string) {
		if a < wlo || b > whi {
			wlo, whi = min(wlo, a), max(whi, b)
			unsure = append(unsure, why)
		}
	}
	if c := row.Contention; c != nil && pastConfirms(&row) {
		row.setNote(fmt.Sprintf("priced under contention: its same-time reference ran %+.0f%% off the calibration's median of its pattern (tolerance %.0f%%), and %s: the load slowed the reference and the row alike",
			100*c.Off, 100*c.Tolerance, row.withinPast()))
	} else if c != nil {
		widen(row.Efficiency, row.Efficiency, "a burst of load slowed its same-time reference, perhaps more than the row")
		row.setNote(fmt.Sprintf("priced under contention: its same-time reference ran %+.0f%% off the calibration's median of its pattern (tolerance %.0f%%), so its judged interval holds its efficiency on the profile too", 100*c.Off, 100*c.Tolerance))
	}
	if !Blank(row.Machine) {
		// The judged figure assumes the row was slowed as much as its reference, a pure
		// stream. A row with arithmetic or a sequential dependence in it may not have been
		// slowed at all by a slower memory (the scan of a cumsum, a reduction's two passes):
		// its other reading is its efficiency on the machine as the calibration typically
		// found it (the reference pattern's median round over its best). On a profile
		// measured under load that median is the load's, far below its best, which lifts
		// this reading: the high end stays as wide, and the low end is the loaded profile's
		// own (below).
		if s := refSpread(d.prof); s.Measured() && s.Max > 0 {
			typical := row.Efficiency / (s.Median / s.Max)
			if followed(&row, s.Median/s.Max) {
				row.addNote(fmt.Sprintf("it slowed as its same-time reference did: %s, where a row slowed less would read %s on the machine as calibrated",
					row.withinPast(), Percent(typical)))
			} else {
				widen(typical, typical, fmt.Sprintf("its same-time reference ran at %s of the calibration's best, and a row slowed less than a pure stream reads %s on the machine as calibrated", Percent(row.Machine), Percent(typical)))
			}
		}
	}
	if row.sameTimeJudged() && min(wlo, row.Judged) > AnomalyAbove*(1+lineTolerance) {
		// No kernel beats its roof in the same moments: a judged efficiency above the anomaly
		// line across its interval says the reference beside the row was slowed more than
		// the row (a short reference call preempted where the row's call was not), so the
		// correction is not to be trusted; the row's efficiency on the profile is the other
		// reading.
		widen(min(row.Efficiency, wlo), whi, fmt.Sprintf("its judged efficiency (%s) is above the roof across its interval: the reference beside it was slowed more than the row", Percent(row.Judged)))
	}
	if !Blank(row.Probe) && row.Bound == Memory && row.ProbeHigh < 1-d.probeTol {
		// The machine computed slower than calibrated, for certain (the probe's whole
		// interval is below the calibration's spread): a row with arithmetic in it may have
		// lost as much as the probe did (its median), which no memory stream shows, unless
		// its rate over its same-time reference is within its quiet runs' (pastConfirms):
		// then the load took from the reference what it took from the row.
		if pastConfirms(&row) {
			row.addNote(fmt.Sprintf("the machine computed at %s of its calibrated best while it ran (the compute probe), and %s: the load slowed the reference and the row alike",
				Percent(row.Probe), row.withinPast()))
		} else {
			widen(row.Judged, row.Efficiency/row.Probe, fmt.Sprintf("the machine computed at %s of its calibrated best while it ran (the compute probe), which may have slowed it that much", Percent(row.Probe)))
		}
	}
	if row.RefUnsure {
		unsure = append(unsure, fmt.Sprintf("its implied rate is %sx its same-time reference at the median, above the same-time line (%sx), but not across the reference's 99%% interval: the physics check cannot tell a formula error from the load", Times(row.RefRatio), Times(row.RefLine)))
		wlo, whi = 0, math.MaxFloat64
	}
	if d.loaded && !row.sameTimeJudged() && Blank(row.Probe) {
		// Nothing timed in the row's own moments: its time and the ceilings were both taken
		// under load, by amounts nothing measured.
		unsure = append(unsure, fmt.Sprintf("profile %s was measured under load (its calibration was refused) and no reference was timed beside the row", d.prof.Name))
		wlo, whi = 0, math.MaxFloat64
	} else if d.loaded && !(row.Bound == Compute && !Blank(row.Probe) && r.key == profiles.ProbeKey) {
		// Only a compute-bound row on the probe's own roof is judged on the probe alone;
		// every other judgment uses a ceiling of the loaded profile.
		hi := row.Judged * (1 + DriftCap)
		if !Blank(row.Machine) {
			// Judged is the row's rate over its reference times the reference pattern's best
			// over the envelope, and no pattern beats the envelope: the row over its
			// reference bounds it whatever the load did to the profile.
			hi = max(row.Judged, min(hi, row.RefRatio))
		}
		lo, why := row.Judged/(1+DriftCap), fmt.Sprintf("profile %s was measured under load (its calibration was refused), so its ceilings are lower bounds, each taken as up to %.0f%% off (the drift cap)", d.prof.Name, 100*DriftCap)
		if row.Bound == Memory && d.prof.HBM.Theoretical > 0 {
			// A memory roof measured under load has no upper bound but the profile's
			// theoretical one: the load can slow the calibration's streams by more than the
			// drift cap, and the same-time reference beside a row by more than the row (a
			// reference that waits on its slowest worker, beside a row that does not), so
			// nothing the run measured says the row is at the hardware's ceiling.
			lo = min(lo, row.ByteRate/d.prof.HBM.Theoretical)
			why = fmt.Sprintf("profile %s was measured under load (its calibration was refused), so its DRAM ceiling is a lower bound, and the row at its theoretical DRAM ceiling (%s) reads %s", d.prof.Name, Rate(d.prof.HBM.Theoretical, "B/s"), Percent(lo))
		}
		widen(lo, hi, why)
	}
	if drift != nil && !p.PriceDrifted && !row.sameTimeJudged() {
		// Its run's copy references say how far the machine was off the profile while the
		// run went on; without a reference of its own the row may have been anywhere in
		// between.
		fmin, fmax := d.driftRange(rec.Pos.File)
		widen(row.Judged/fmax, row.Judged/fmin, fmt.Sprintf("its run's copy references ran at %s-%s of the profile's copy median and it has no same-time reference of its own", Percent(fmin), Percent(fmax)))
	}
	row.Verdict = verdict(row.SOLTime, floor, row.Judged, slowest, lo, hi)
	if len(unsure) > 0 {
		if whi < math.MaxFloat64 {
			row.JudgedLow, row.JudgedHigh = wlo, whi
		}
		row.Unsure = strings.Join(unsure, "; ")
	}
	// A row that may breach the same-time line is inconclusive even where its samples
	// alone leave it at the line: its efficiency may be an overcount's.
	if (row.Verdict == AtCeiling || row.Verdict == Below || row.Verdict == AtLine && row.RefUnsure) && len(unsure) > 0 && holdsLine(wlo, whi) {
		row.Verdict = Inconclusive
		row.addNote("inconclusive: " + row.Unsure)
	}
	if row.Verdict == Anomaly {
		row.setNote(NoteAnomaly)
	}
	if pastLine && row.Verdict == AtLine {
		row.addNote(fmt.Sprintf("at the line over its runs: judged %s in this run, %s-%s in the %d earlier runs of this device the history holds",
			Percent(row.Judged), Percent(row.Past.Low), Percent(row.Past.High), row.Past.Runs))
	}
	return row
}

// sameTimeJudged reports whether the row's verdict judges it against a reference timed in
// its own moments: a memory-bound row's same-time reference (Machine), a compute-bound
// row's compute probe.
func (row *Row) sameTimeJudged() bool {
	return !Blank(row.Machine) || (row.Bound == Compute && !Blank(row.Probe))
}

// probeCeiling returns prof's best round of the probe's roof and the relative spread of its
// rounds, which a probe may sit below the best on a quiet machine; 0 when prof measured none.
func probeCeiling(prof *profiles.Profile) (best, tol float64) {
	c, ok := prof.Roof(profiles.ProbeKey)
	if !ok || !c.Calibrated() {
		return 0, 0
	}
	if c.Spread.Measured() && c.Spread.Max > 0 {
		return c.Spread.Max, min(profiles.ComputeTolerance, c.Spread.Rel())
	}
	return c.Effective, 0
}

// verdict is the verdict of a priced row with SOL time sol, the cold-call floor floor (0:
// none), its judged efficiency eff (Row.Judged) and its interval lo to hi (NaN: none), and
// the efficiency of its slowest sample, slowest, on the profile's ceiling (relaxed where
// the machine ran faster than calibrated).
// "At ceiling" judges the typical sample, the median: the slowest of a few cold calls on a
// shared machine is the one that lost its core or its memory bandwidth to something else,
// and a line judged by it moves a kernel that sits at its mix's ceiling across the line from
// run to run. "Anomaly" accuses the formula or the calibration, so it takes the whole spread
// above its line, the slowest sample too.
// "At the line" takes a row whose interval holds the at-ceiling line: on either side, its
// verdict would be a coin its samples toss.
func verdict(sol, floor, eff, slowest, lo, hi float64) Verdict {
	switch {
	case floor > 0 && sol < floor:
		return LatencyBound
	case slowest > AnomalyAbove*(1+lineTolerance):
		return Anomaly
	case !Blank(lo) && holdsLine(lo, hi):
		return AtLine
	case reachesCeiling(eff):
		return AtCeiling
	}
	return Below
}

// reachesCeiling reports whether a judged efficiency is at or above the at-ceiling line.
func reachesCeiling(eff float64) bool { return eff >= AtCeilingMin*(1-lineTolerance) }

// holdsLine reports whether the interval lo to hi holds the at-ceiling line: one side of it
// reaches the line and the other does not.
func holdsLine(lo, hi float64) bool { return reachesCeiling(hi) && !reachesCeiling(lo) }

// addNote appends s to the note.
func (row *Row) addNote(s string) {
	if row.Note != "" {
		row.Note += "; "
	}
	row.Note += s
}

// setNote sets the note unless a physics breach already wrote one: the breach is the finding
// that matters most.
func (row *Row) setNote(s string) {
	if row.Note == "" {
		row.Note = s
	}
}

func breachNote(row *Row, prof *profiles.Profile, r *roof) string {
	// The ratio, not only both rates: 100.4 GB/s over 100 GB/s would print as "100 over 100".
	var parts []string
	if row.ByteBreach {
		parts = append(parts, fmt.Sprintf("implied %s is %s of the %s theoretical %s ceiling (%s)",
			Rate(row.PeakByteRate, "B/s"), Percent(row.PeakByteRate/prof.HBM.Theoretical), prof.Name, MemoryName(prof), Rate(prof.HBM.Theoretical, "B/s")))
	}
	if row.FlopBreach {
		parts = append(parts, fmt.Sprintf("implied %s is %s of the %s theoretical %s ceiling (%s)",
			Rate(row.PeakFlopRate, "FLOP/s"), Percent(row.PeakFlopRate/r.theoretical), prof.Name, r.key, Rate(r.theoretical, "FLOP/s")))
	}
	if lo, _ := row.Rec.Spread(); len(parts) > 0 && lo != row.Rec.Seconds {
		parts[len(parts)-1] += " by its fastest sample"
	}
	if row.RefBreach {
		at := ""
		if r := row.Rec.RefRateHigh; r > 0 {
			at = fmt.Sprintf(", and %sx its interval's high bound", Times(row.ByteRate/r))
		}
		parts = append(parts, fmt.Sprintf("implied %s by its median sample is %sx the same-time reference (%s, the streaming pattern timed between its samples%s; the line is %sx: the DRAM envelope over that pattern's calibrated rate, widened by its spread)",
			Rate(row.ByteRate, "B/s"), Times(row.RefRatio), Rate(row.RefRate, "B/s"), at, Times(row.RefLine)))
	}
	return "formula error: " + strings.Join(parts, "; ")
}

// PriceAll prices every record that is not a reference, in order. It reads the references
// first (AddReference), so the cold-call floor of a run prices all of its rows.
func (p *Pricer) PriceAll(recs []record.Record) []Row {
	for i := range recs {
		if recs[i].IsReference() {
			p.AddReference(&recs[i])
		}
	}
	rows := make([]Row, 0, len(recs))
	for i := range recs {
		if !recs[i].IsReference() {
			rows = append(rows, p.Price(&recs[i]))
		}
	}
	return rows
}

// AddReference takes in a reference record of its device: a ref.floor raises the cold-call
// floor of its device and implementation to its time (the latency rule's floor is the
// largest such time, else the profile's latency_floor), and a ref.copy is kept for Drift.
// Other records are ignored.
func (p *Pricer) AddReference(rec *record.Record) {
	d := p.device(rec.Device)
	if d.prof == nil {
		return
	}
	switch rec.Op {
	case record.RefFloor:
		// A floor is its implementation's own: a cold PyTorch call costs a hundred times a
		// cold Go call, and a harness's rows judged on ropgen's floor read "below" where they
		// are dispatch-bound.
		impl := rec.ImplName()
		if d.floors == nil {
			d.floors = map[string]float64{}
		}
		d.floors[impl] = max(d.floors[impl], rec.Seconds)
	case record.RefCopy:
		d.refs = append(d.refs, rec)
	}
}

// Floor returns the cold-call floor that prices the rows of device timed on implementation
// impl (record.Record.ImplName), and whether there is one.
func (p *Pricer) Floor(device, impl string) (float64, bool) {
	f := p.device(device).floorOf(impl)
	return f, f > 0
}

// floorOf is the cold-call floor of impl's rows: the largest time of its ref.floor records,
// else the profile's latency_floor (a cold call of ropgen's kernels).
func (d *device) floorOf(impl string) float64 {
	if f, ok := d.floors[impl]; ok {
		return f
	}
	return d.floor
}

// FloorSource says where the floor of device's rows timed on impl comes from: the run's
// ref.floor record, or the profile's latency_floor, which is a cold call of ropgen's own
// kernels whatever implementation the rows are.
func (p *Pricer) FloorSource(device, impl string) string {
	if _, ok := p.device(device).floors[impl]; ok {
		return "the cold call the run timed (ref.floor)"
	}
	if impl != record.DefaultImpl {
		return "the profile's latency_floor, a cold call of ropgen's kernels: " + impl + "'s records carry no ref.floor of their own"
	}
	return "the profile's latency_floor"
}

// Breaches returns the rows that fail the physics check: a theoretical ceiling or the
// same-time reference.
func Breaches(rows []Row) []Row {
	var bad []Row
	for _, r := range rows {
		if r.ByteBreach || r.FlopBreach || r.RefBreach {
			bad = append(bad, r)
		}
	}
	return bad
}
