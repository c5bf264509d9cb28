-- Schema version 1: the runs, their records as measured, and the profiles they were priced
-- against. Written once for both databases: {{id}} is each one's auto-numbered key.
CREATE TABLE ropgen_profiles (
	digest TEXT PRIMARY KEY, -- sha256 of text: a profile priced against by many runs is kept once
	name   TEXT NOT NULL,
	source TEXT NOT NULL,    -- the file it was read from, or builtin:<file>
	text   TEXT NOT NULL     -- the profile file as it was: its ceilings, to price the run again
);

CREATE TABLE ropgen_runs (
	id             {{id}},
	digest         TEXT NOT NULL UNIQUE, -- sha256 of the records: a run added twice is stored once
	added_at       TEXT NOT NULL,        -- RFC 3339, UTC
	commit_rev     TEXT NOT NULL,
	dirty          BOOLEAN NOT NULL,
	device         TEXT NOT NULL,
	host           TEXT NOT NULL,
	host_load      TEXT NOT NULL,        -- /proc/loadavg's 1, 5 and 15 minute averages when added
	ropgen_version TEXT NOT NULL,
	command        TEXT NOT NULL,
	profile        TEXT REFERENCES ropgen_profiles (digest), -- NULL: no profile matched the device
	nrows          INTEGER NOT NULL,     -- the op × workload × dtype rows, references apart
	nrecords       INTEGER NOT NULL
);
CREATE INDEX ropgen_runs_device ON ropgen_runs (device, id);

-- A row: what a record times, the same in every run that times it.
CREATE TABLE ropgen_rows (
	id       {{id}},
	device   TEXT NOT NULL,
	op       TEXT NOT NULL,
	workload TEXT NOT NULL,
	dtype    TEXT NOT NULL,
	roof     TEXT NOT NULL,
	flops    BIGINT NOT NULL,
	bytes    BIGINT NOT NULL,
	UNIQUE (device, op, workload, dtype, roof, flops, bytes)
);

-- A record: one timing of a row in a run, every field the record format carries.
CREATE TABLE ropgen_records (
	run           BIGINT NOT NULL REFERENCES ropgen_runs (id),
	seq           INTEGER NOT NULL, -- the record's place in the run, from 1
	row_id        BIGINT NOT NULL REFERENCES ropgen_rows (id),
	seconds       DOUBLE PRECISION NOT NULL,
	min_seconds   DOUBLE PRECISION NOT NULL,
	max_seconds   DOUBLE PRECISION NOT NULL,
	iters         INTEGER NOT NULL,
	ref_rate      DOUBLE PRECISION NOT NULL,
	ref_rate_low  DOUBLE PRECISION NOT NULL,
	ref_rate_high DOUBLE PRECISION NOT NULL,
	PRIMARY KEY (run, seq)
);
