#!/usr/bin/env bash
# make run's steps after the build (the Makefile's run target calls it with OUT set and the
# binaries built in $OUT/bin): calibrate the host when its profile is missing or from another
# boot, benchmark a quick subset of the catalog and the rows that can earn a verdict, measure
# again once when the run's copy reference drifted off the profile, and print the summary.
#
# A calibration the machine is too busy for is refused (ropgen calibrate exits 3) and tried
# once more. Refused twice, the run goes on all the same (docs/report.md, "A busy machine"):
# against the host's earlier profile when there is one (the drift rule protects its rows),
# else against the refused measurement itself, kept apart in $OUT/host-loaded.yaml and never
# as $OUT/host.yaml: its figures are lower bounds, so the report gives a verdict only where
# the references timed beside a row carry it, and says "inconclusive" with the reason
# elsewhere. Exit 1 when a row breaches a theoretical ceiling or the same-time line (a
# formula error), or when a step fails; else 0.
set -u
OUT=${OUT:-out}
BIN=$OUT/bin
PROFILE=$OUT/host.yaml
LOADED=$OUT/host-loaded.yaml
EARLIER=$OUT/host-earlier.yaml
# A measurement refused under load describes the minute it was taken in, not this run's; the
# history's earlier profile is fetched again where a run needs it.
rm -f "$LOADED" "$EARLIER"

loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown; }

# calibrate FILE: measure the host into FILE, once more when refused; 0 when FILE was
# written, 3 when refused twice (the last refused measurement is in $LOADED), else 1.
calibrate() {
	echo "calibrating $1 (log: $OUT/calibrate.log)" >&2
	"$BIN/ropgen" calibrate -o "$1" -loaded "$LOADED" 2> "$OUT/calibrate.log"
	local status=$?
	if [ $status -eq 3 ]; then
		sed -n '/refused (attempt/,$p' "$OUT/calibrate.log" >&2
		mv "$OUT/calibrate.log" "$OUT/calibrate-refused.log"
		echo "calibrating again, once (load average $(loadavg); the refused log: $OUT/calibrate-refused.log)" >&2
		"$BIN/ropgen" calibrate -o "$1" -loaded "$LOADED" 2> "$OUT/calibrate.log"
		status=$?
		[ $status -eq 3 ] && sed -n '/refused (attempt/,$p' "$OUT/calibrate.log" >&2
	fi
	case $status in
	0 | 3) return $status ;;
	esac
	cat "$OUT/calibrate.log" >&2
	return 1
}

# benchmark PROFILE: the quick rows, then the rows that can earn a verdict on PROFILE.
benchmark() {
	echo "benchmarking (logs: $OUT/quick.log, $OUT/chart.log)" >&2
	"$BIN/ropbench" run -quick -o "$OUT/quick.txt" 2> "$OUT/quick.log" || { tail -5 "$OUT/quick.log"; return 1; }
	# The judged cases are sized by the history's median cold-call floor of this host (none
	# yet: the run's own), so that an op's judged case stays the same from run to run.
	local floor
	floor=$("$BIN/ropgen" history floor 2> /dev/null)
	"$BIN/ropbench" run -judge "$1" ${floor:+-judge-floor "$floor"} -samples 15 -max-samples 120 -o "$OUT/chart.txt" 2> "$OUT/chart.log" || { tail -5 "$OUT/chart.log"; return 1; }
}

profile=$PROFILE
refused=0
if ! { test -s "$PROFILE" && "$BIN/ropgen" report -check -profile "$PROFILE" > "$OUT/check.txt"; }; then
	cat "$OUT/check.txt" 2> /dev/null >&2
	calibrate "$PROFILE"
	case $? in
	0) ;;
	3)
		refused=1
		if test -s "$PROFILE"; then
			echo "make run: the calibration was refused twice (load average $(loadavg)): the run is priced against the earlier profile $PROFILE, its rows protected by the drift rule (docs/report.md)" >&2
		elif "$BIN/ropgen" history profile -o "$EARLIER" 2> /dev/null; then
			# make clean removed the host's profile; the history keeps the last quiet one.
			profile=$EARLIER
			echo "make run: the calibration was refused twice (load average $(loadavg)): the run is priced against this host's earlier profile from the history ($EARLIER, measured on this boot), its rows protected by the drift rule (docs/report.md)" >&2
		else
			profile=$LOADED
			echo "make run: the calibration was refused twice (load average $(loadavg)) and this host has no earlier profile: the run is priced against the refused measurement $LOADED, whose figures are lower bounds (docs/report.md, \"A busy machine\"); $PROFILE is not written" >&2
		fi
		;;
	*) exit 1 ;;
	esac
fi
benchmark "$profile" || exit 1
# Once refused, not again: the machine that refused twice a minute ago is still busy.
if [ "$profile" = "$PROFILE" ] && [ $refused = 0 ] && ! "$BIN/ropgen" report -check -profile "$PROFILE" "$OUT/quick.txt" "$OUT/chart.txt" > "$OUT/check.txt"; then
	cat "$OUT/check.txt" >&2
	calibrate "$OUT/host-new.yaml"
	case $? in
	0) mv "$OUT/host-new.yaml" "$PROFILE" && benchmark "$PROFILE" || exit 1 ;;
	3) echo "make run: the calibration was refused twice (load average $(loadavg)): the rows are priced against $PROFILE under the drift rule (docs/report.md, Drift)" >&2 ;;
	*) exit 1 ;;
	esac
fi
# The verdicts judge the line over the history's earlier runs of this device too (report
# -history): a row read on both sides of it from run to run is at the line.
"$BIN/ropgen" report -history -profile "$profile" -o "$OUT/quick-report.txt" "$OUT/quick.txt" 2> /dev/null
"$BIN/ropgen" report -history -profile "$profile" -o "$OUT/chart-report.txt" -svg "$OUT/roofline.svg" "$OUT/chart.txt" 2> /dev/null
"$BIN/ropgen" report -history -profile "$profile" -html "$OUT/report.html" "$OUT/quick.txt" "$OUT/chart.txt" > /dev/null 2>&1
# Every run is kept (docs/history-store.md), with the profile that priced it; a run the
# machine was too busy to calibrate for, with the refused measurement, what it measured of
# the machine: the verdicts' past (report -history) leaves such runs out.
kept=$profile
[ $refused = 1 ] && [ -s "$LOADED" ] && kept=$LOADED
"$BIN/ropgen" history add -profile "$kept" "$OUT/quick.txt" "$OUT/chart.txt" > /dev/null 2> "$OUT/history.log" || cat "$OUT/history.log" >&2
"$BIN/ropgen" history diff > "$OUT/history-diff.txt" 2>&1
cat "$OUT/history-diff.txt"
"$BIN/ropgen" history page -o "$OUT/history.html" > /dev/null
"$BIN/ropgen" report -summary -history -profile "$profile" "$OUT/quick.txt" "$OUT/chart.txt"
status=$?
# Exit 4 says rows were left unpriced; the summary counts them and their notes say why.
[ $status -eq 4 ] && status=0
echo "full tables: $OUT/quick-report.txt (regression rows), $OUT/chart-report.txt (ranked rows); HTML page: $OUT/report.html; chart: $OUT/roofline.svg; profile: $profile"
echo "history: every run is kept in ${ROPGEN_DB:-.ropgen/history.db} (ropgen history runs); the diff above is against the previous run of this device ($OUT/history-diff.txt); trend page: $OUT/history.html"
exit $status
