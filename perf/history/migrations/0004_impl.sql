-- Schema version 4: the implementation a run's records time (record.Record.Impl: '' for
-- ropgen's own kernels, else the harness's name, as torch), which version 3 did not keep:
-- a PyTorch run of the same rows on the same device is no run of ropgen's kernels, and
-- neither a diff, a trend nor a verdict's past may mix the two. Runs stored before are
-- ropgen's own ('').
ALTER TABLE ropgen_runs ADD COLUMN impl TEXT NOT NULL DEFAULT '';
