-- Schema version 3: each run's timings in one value (timingsVersion's encoding, runs.go),
-- so that reading a run is one row, not one row a record: show and diff over a thousand runs
-- read 200,000 records, and a database driver spends more per row and column than the
-- timings are. A table of its own, so that the list of runs stays small to scan.
-- ropgen_records stays the record of truth, and what a run without timings (one stored
-- before) is read from.
CREATE TABLE ropgen_timings (
	run     BIGINT PRIMARY KEY REFERENCES ropgen_runs (id),
	timings {{blob}} NOT NULL
);
