-- Schema version 2: a record's same-time compute probe (record.Record.ProbeRate and its
-- bounds), which version 1 did not keep: the diff takes the machine's own change out of a
-- compute-bound row's time with it, as with the reference rate of a DRAM-sized one. Runs
-- stored before have none (0), as records from before the probe have.
ALTER TABLE ropgen_records ADD COLUMN probe_rate DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE ropgen_records ADD COLUMN probe_rate_low DOUBLE PRECISION NOT NULL DEFAULT 0;
ALTER TABLE ropgen_records ADD COLUMN probe_rate_high DOUBLE PRECISION NOT NULL DEFAULT 0;
