package render

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/ropgen/ropgen/perf/profiles"
	"github.com/ropgen/ropgen/perf/report"
)

// SummaryTop is how many ranked rows the summary lists; the rest are counted, with the time
// they lose together.
const SummaryTop = 20

// WriteSummary writes the short report a person reads first: for each profile that priced
// the rows, its ceilings with their spread in the host's own words (DRAM, the vector and
// scalar pipes, a matrix unit only where the chip has one); then the rows that earned a
// verdict, ranked by the time they lose against their roof (Rank), each with its bound,
// the roof to attack and what would move it; a legend; the rows too small to judge (SOL
// under the latency floor: kept for regressions) counted apart, and the ops that have only
// such rows; the verdict counts, the latency floor and the drift references of each run.
// A device no profile prices gets one message that says how to get one (NoProfileHelp).
func WriteSummary(w io.Writer, p *report.Pricer, rows []report.Row) error {
	bw := bufio.NewWriter(w)
	seen := map[*profiles.Profile]bool{}
	for _, m := range p.Devices() {
		if m.Profile == nil {
			fmt.Fprintf(bw, "device %q: not priced: %s\n", m.Device, plainText(NoProfileHelp(m.Device, m.Err)))
			continue
		}
		if seen[m.Profile] {
			continue
		}
		seen[m.Profile] = true
		writeCeilings(bw, m.Profile, p.Basis())
	}

	ranked := Rank(rows)
	lostAll := LostTotal(ranked)
	if len(ranked) > 0 {
		fmt.Fprintf(bw, "\nkernels ranked by the time they lose against their roof (%s):\n", RankRule)
		// The judged column appears when a row was judged against the machine as a reference
		// timed beside it found it: its verdict then reads that figure, not eff.
		machine := slices.ContainsFunc(ranked[:min(len(ranked), SummaryTop)], func(r Ranked) bool { return judgedDecides(r.Row) })
		head := []string{"#", "op/workload/dtype", "time", "sol", "lost", "share", "eff", "samples", "verdict", "what would move it"}
		right := []bool{true, false, true, true, true, true, true, true, false, false}
		if machine {
			head = slices.Insert(head, 8, "judged")
			right = slices.Insert(right, 8, true)
		}
		cells := [][]string{head}
		short := false
		several := severalImpls(rows)
		for i, r := range ranked {
			if i == SummaryTop {
				break
			}
			full := r.Rec.Op + "/" + r.Rec.Workload + "/" + r.Rec.DType
			name := report.ShortName(full)
			short = short || name != full
			if several {
				name = r.Rec.ImplName() + ": " + name // two implementations' rows of one case are two rows
			}
			name = plainText(name) // from the records: one line of plain text
			share := ""
			if lostAll > 0 && r.Lost > 0 {
				share = roundPercent(r.Lost / lostAll)
			}
			row := []string{fmt.Sprint(i + 1), name, report.SI(r.Rec.Seconds, "s"), report.SI(r.SOLTime, "s"), report.SI(r.Lost, "s"),
				share, report.Percent(r.Efficiency), effSpread(r.Row), string(r.Verdict), r.Move}
			if machine {
				row = slices.Insert(row, 8, report.Percent(r.Judged))
			}
			cells = append(cells, row)
		}
		writeAligned(bw, cells, right)
		if n := len(ranked) - SummaryTop; n > 0 {
			fmt.Fprintf(bw, "... and %d more ranked rows, %s lost together (the full tables list every row)\n", n, report.SI(LostTotal(ranked[SummaryTop:]), "s"))
		}
		bw.WriteString(SummaryLegend + "\n")
		if machine {
			bw.WriteString(JudgedLegend + "\n")
		}
		if short {
			bw.WriteString(report.DTypeLegend + "\n")
		}
	}

	if len(ranked) == 0 {
		bw.WriteString("\nno row to rank: none has a verdict other than latency-bound (the counts below say what the rows are)")
		bw.WriteString("\n")
	}

	// The rows too small to judge: counted, and the ops that have no other row named.
	var tiny int
	var tinyOnly []string
	judged := map[string]bool{}
	for _, r := range ranked {
		judged[r.Rec.Op] = true
	}
	tinyOps := map[string]bool{}
	for i := range rows {
		if rows[i].Verdict != report.LatencyBound {
			continue
		}
		tiny++
		if op := rows[i].Rec.Op; !judged[op] && !tinyOps[op] {
			tinyOps[op] = true
			tinyOnly = append(tinyOnly, op)
		}
	}
	if tiny > 0 {
		fmt.Fprintf(bw, "\nregression rows, counted apart: %s whose SOL time is under the latency floor (dispatch and first touch, not the kernel, set their time), kept to catch regressions and listed in the full tables\n", plural(tiny, "row"))
		if len(tinyOnly) > 0 {
			fmt.Fprintf(bw, "ops with regression rows only (no row here large enough to judge): %s\n", plainText(strings.Join(tinyOnly, ", ")))
		}
	}
	bw.WriteString("\n" + Counts(rows).String() + "\n")
	writeReferences(bw, p, rows)
	if line := AuditLine(ranked, false); line != "" {
		bw.WriteString(line + "\n")
	}
	writePhysicsPower(bw, rows)
	return bw.Flush()
}

// AuditLine says how many of the ranked rows' formulas the bytes audit judged, by verdict
// (report.Row.Audit), and that the others' never were: a verdict on a row whose bytes
// formula undercounts reads as a slow kernel, and no rate check can tell (writePhysicsPower).
// It is "" when no row was audited and given (an audit was read: report -audit) is false.
func AuditLine(ranked []Ranked, given bool) string {
	count := map[string]int{}
	for _, r := range ranked {
		count[r.Audit]++
	}
	n := len(ranked) - count[""]
	if n == 0 && !given {
		return ""
	}
	s := fmt.Sprintf("bytes audit: %d of %s audited (%d PASS, %d WARN, %d FAIL; a FAIL row reads formula error)",
		n, plural(len(ranked), "ranked row"), count["PASS"], count["WARN"], count["FAIL"])
	if n < len(ranked) {
		s += "; the others' formulas were never checked against the traffic measured"
	}
	return s
}

// writePhysicsPower says what the rate checks behind the formula-error verdict can convict,
// and points to the bytes audit for the rest (docs/report.md, the physics check).
func writePhysicsPower(bw *bufio.Writer, rows []report.Row) {
	line := 0.0
	for i := range rows {
		if !report.Blank(rows[i].RefRatio) {
			line = max(line, rows[i].RefLine)
		}
	}
	if line > 0 {
		fmt.Fprintf(bw, "physics check: a DRAM-sized row is a formula error above %sx its same-time reference (derived from the profile), so bytes counted k times too high are caught only on a kernel that ran above %s/k of it; ", report.Times(line), report.Times(line))
	} else {
		bw.WriteString("physics check: rows are judged against the theoretical ceilings only; ")
	}
	bw.WriteString("no rate check catches bytes counted too low: audit them with your bench command's audit (docs/audit.md)\n")
}

// RankRule says how Rank orders the rows, for the table's title. The manifests give a
// workload no weight (how much of a model's time it stands for), so every row weighs one:
// the lost time of one call.
const RankRule = "lost = median time - SOL time, one call; the manifests give no workload weight, so every row weighs the same"

// SummaryLegend is the line under the ranked table.
const SummaryLegend = "legend: sol = the speed-of-light time on the roof that bounds the row; share = of all the ranked rows' lost time; " +
	"eff = sol / median time; samples = eff of the slowest and of the fastest sample; verdict: at ceiling when the median sample is at 80% or more (anomaly: the slowest above 105%)"

// JudgedLegend explains the judged column, shown when a row has a same-time reference.
const JudgedLegend = "judged = eff over how fast the machine streamed (a memory-bound row's same-time reference) or computed (a compute-bound row's compute probe) while the row ran, as a fraction of the calibration's best; such a row earns its verdict by it"

// Ranked is a row of the summary's ranking: the time it loses against its roof and what
// would move it.
type Ranked struct {
	*report.Row
	// Lost is the measured median time minus the SOL time, in seconds: what the kernel
	// loses against its roof in one call (negative for an anomaly).
	Lost float64
	// Roof is the roof to attack, in the host's words: the memory level of a memory-bound
	// row (DRAM, HBM), the compute unit of a compute-bound one (vector.fp32, cube.bf16).
	Roof string
	// Move says in one line what would move the row.
	Move string
}

// Rank returns the rows that earned a verdict other than latency-bound (priced, with a
// measured time and a SOL time above the latency floor), the most lost time first: the
// kernel to work on first leads. Ties keep the rows' order.
func Rank(rows []report.Row) []Ranked {
	var out []Ranked
	for i := range rows {
		r := &rows[i]
		if r.Verdict == report.LatencyBound || r.Verdict == report.None || report.Blank(r.SOLTime) || r.Rec.Seconds <= 0 {
			continue
		}
		k := Ranked{Row: r, Lost: r.Rec.Seconds - r.SOLTime, Roof: AttackRoof(r)}
		k.Move = move(r, k.Roof)
		out = append(out, k)
	}
	slices.SortStableFunc(out, func(a, b Ranked) int { return cmp.Compare(b.Lost, a.Lost) })
	return out
}

// LostTotal is the time the ranked rows lose together: an anomaly's negative lost time takes
// none away.
func LostTotal(ranked []Ranked) float64 {
	var sum float64
	for _, r := range ranked {
		sum += max(r.Lost, 0)
	}
	return sum
}

// NoMatrixLine says that a CPU has no matrix unit, in place of its cube roofs: the profile's
// cube keys stay out of the prose, since on this chip they name no unit.
const NoMatrixLine = "no matrix unit: the ops declared on one (GEMM, convolution, attention) are priced at the SIMD unit of the same dtype (its vector roof)"

// AttackRoof is the roof that bounds a priced row, in the host's words: its memory level
// when it is memory-bound, else the compute unit that priced it.
func AttackRoof(r *report.Row) string {
	if r.Bound == report.Memory {
		return report.MemoryName(r.Profile)
	}
	return report.RoofName(r.Profile, cmp.Or(r.PricedRoof, r.Rec.Roof))
}

// move says in one line what would move a ranked row: where it stands against which roof,
// and what to work on.
func move(r *report.Row, roof string) string {
	at := fmt.Sprintf("%s at %s of %s", r.Bound, roundPercent(r.Efficiency), roof)
	switch r.Verdict {
	case report.FormulaError:
		return "formula error: the row's flops/bytes formula or its roof key is wrong (ropgen audit)"
	case report.Anomaly:
		return at + ": above the ceiling; recalibrate (ropgen calibrate), or audit the bytes (ropgen audit)"
	case report.AtCeiling:
		if r.Bound == report.Memory {
			return at + ": at ceiling; only fewer bytes (fusion, a smaller dtype) would move it"
		}
		return at + ": at ceiling; only a faster unit would move it"
	case report.AtLine:
		return at + ": at the line within noise (its 99% interval holds 80%); more samples settle it (ropbench run -max-samples)"
	case report.Inconclusive:
		return at + ": inconclusive: " + r.Unsure + "; measure again on a quieter machine"
	}
	if r.Bound == report.Memory {
		return at + ": the kernel's traffic or its streaming"
	}
	unit, _, _ := strings.Cut(roof, ".")
	switch {
	case unit == "vector" && report.HasMatrixUnit(r.Profile):
		return at + ": SIMD or the matrix unit"
	case unit == "vector" && report.IsCPU(r.Profile):
		return at + ": SIMD, FMA use and blocking (this chip has no matrix unit)"
	case unit == "vector":
		return at + ": vectorisation"
	case unit == "scalar":
		return at + ": SIMD"
	}
	return at + ": tiling for the " + unit + " unit"
}

// NoProfileHelp is the one message for a device no profile prices: why (err), and how to
// get a profile. A CPU host is calibrated (ropgen calibrate writes its profile; make run
// keeps it in out/host.yaml, which -profile host finds); another device needs a profile
// file of its own.
func NoProfileHelp(device string, err error) string {
	why := "no profile prices it"
	if err != nil {
		why = err.Error()
	}
	if strings.HasPrefix(strings.ToLower(device), "cpu:") {
		return why + ". This is a CPU host: measure its profile with `ropgen calibrate -o out/host.yaml` " +
			"(make run does, and keeps it there), then pass -profile host (or -profile out/host.yaml). Its SOL cells are blank"
	}
	return why + "; pass -profile NAME|FILE (a builtin name, or a profile file: docs/profiles.md). Its SOL cells are blank"
}

// writeCeilings writes a profile's ceilings on basis with their spread, one a line, in the
// host's words: the memory roof's name (DRAM on a CPU), and on a CPU whose cube roofs are
// its vector pipes (NoMatrixUnit) one line saying so in place of the duplicates.
func writeCeilings(bw *bufio.Writer, prof *profiles.Profile, basis profiles.Basis) {
	fmt.Fprintf(bw, "profile %s (%s), %s ceilings", plainText(prof.Name), plainText(prof.Source), basis)
	if m := prof.Measured; !m.At.IsZero() {
		fmt.Fprintf(bw, "; measured %s, load average %.2f, %d cores", m.At.UTC().Format("2006-01-02 15:04 MST"), m.LoadAvg, m.Cores)
	}
	bw.WriteString("\n")
	var cells [][]string
	line := func(name string, c profiles.Ceiling, unit string) {
		v, ok := c.Value(basis)
		val := "none"
		if ok {
			val = report.Rate(v, unit)
		}
		spread := ""
		if s := c.Spread; s.Measured() {
			spread = fmt.Sprintf("spread %s .. %s (n=%d, %.1f%%)", report.Rate(s.Min, ""), report.Rate(s.Max, unit), s.N, 100*s.Rel())
		}
		theo := "theoretical " + report.Rate(c.Theoretical, unit)
		if c.Estimate {
			theo += " (estimate)"
		}
		cells = append(cells, []string{"  " + name, val, spread, theo})
	}
	line(report.MemoryName(prof), prof.HBM, "B/s")
	for i := len(prof.Caches) - 1; i >= 0; i-- {
		c := prof.Caches[i]
		line(strings.ToUpper(c.Key)+" ("+report.SI(float64(c.Bytes), "B")+")", c.Ceiling, "B/s")
	}
	keys, aliased := report.ComputeKeys(prof)
	for _, k := range keys {
		c, _ := prof.Roof(k)
		line(report.RoofName(prof, k), c, profiles.RateUnit(k))
	}
	writeAligned(bw, cells, []bool{false, true, false, false})
	if aliased {
		bw.WriteString("  " + NoMatrixLine + "\n")
	}
}

// plural is n and noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// roundPercent is v in percent to two significant digits at most: "45%", "6.2%", "0.8%".
func roundPercent(v float64) string {
	if v >= 0.095 {
		return fmt.Sprintf("%.0f%%", 100*v)
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}
