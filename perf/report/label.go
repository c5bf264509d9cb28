package report

import (
	"strings"

	"github.com/ropgen/ropgen/perf/profiles"
)

// dtypeShort abbreviates the dtype names inside a mixed dtype label, longest first.
var dtypeShort = strings.NewReplacer("bfloat", "bf", "float8_", "f8", "float", "f", "int", "i")

// ShortDType abbreviates a mixed dtype label for a table column ("q=bfloat16,k=float8_e4m3"
// reads "q=bf16,k=f8e4m3"); a bare dtype ("bfloat16") is short already and stays. Tables say
// so in a footnote, and -json and -csv keep the full label.
func ShortDType(label string) string {
	if !strings.Contains(label, "=") {
		return label
	}
	pairs := strings.Split(label, ",")
	for i, p := range pairs {
		if name, dt, ok := strings.Cut(p, "="); ok {
			// Only the dtype: an input name ("point") keeps its letters.
			pairs[i] = name + "=" + dtypeShort.Replace(dt)
		}
	}
	return strings.Join(pairs, ",")
}

// ShortName abbreviates the dtype part of an op/workload/dtype row name.
func ShortName(name string) string {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return name
	}
	return name[:i+1] + ShortDType(name[i+1:])
}

// DTypeLegend is the footnote of a table with abbreviated dtype labels.
const DTypeLegend = "mixed dtype labels abbreviated (bf = bfloat, f8 = float8_, f = float, i = int); -json and -csv give them in full"

// RoofName is what a roof key is called in prose on prof: the key itself, except on a CPU
// profile whose cube (matrix-role) roof is filled by its SIMD pipes rather than a matrix unit
// (NoMatrixUnit), where it is the vector roof it is ("vector.fp32"), and a CPU cube roof a
// matrix unit fills, which is "matrix" ("matrix.bf16": AMX tiles). The profile key and the
// records keep the model's names (docs/model.md §3.1).
func RoofName(prof *profiles.Profile, key string) string {
	unit, dt, ok := strings.Cut(key, ".")
	if !ok || unit != "cube" || !IsCPU(prof) {
		return key
	}
	if NoMatrixUnit(prof, dt) {
		return "vector." + dt
	}
	return "matrix." + dt
}

// MatrixUnitNote is how a host profile's cube ceiling says that a matrix unit fills it
// (perf/calibrate writes its role at the head of the ceiling's note: "matrix role filled by
// the matrix unit (amx_bf16 bf16)", else by the SIMD unit or the FMA pipes).
const MatrixUnitNote = "filled by the matrix unit"

// NoMatrixUnit reports whether prof is a CPU profile whose cube roof of dtype dt ("fp32")
// is not a matrix unit: absent, or a ceiling whose note does not say a matrix unit fills it
// (MatrixUnitNote; a profile from before the notes said so had its vector pipes there).
func NoMatrixUnit(prof *profiles.Profile, dt string) bool {
	if !IsCPU(prof) {
		return false
	}
	c, ok := prof.Roof("cube." + dt)
	return !ok || !strings.Contains(c.Note, MatrixUnitNote)
}

// HasMatrixUnit reports whether prof has a matrix unit (a cube roof) that is not its vector
// pipes under another name (NoMatrixUnit).
func HasMatrixUnit(prof *profiles.Profile) bool {
	for _, k := range prof.Keys() {
		if unit, dt, ok := strings.Cut(k, "."); ok && unit == "cube" && !NoMatrixUnit(prof, dt) {
			return true
		}
	}
	return false
}

// ComputeKeys returns prof's compute roof keys (every key but hbm) to name in prose, and
// whether it left out a CPU's cube roofs that its vector roofs of the same dtype name already
// (NoMatrixUnit): they would name one unit twice, once as a unit the chip does not have. A
// cube roof of the SIMD unit with no vector key of its dtype (int8 on VNNI) stays: RoofName
// calls it vector.
func ComputeKeys(prof *profiles.Profile) (keys []string, aliased bool) {
	for _, k := range prof.Keys() {
		if k == profiles.HBMKey {
			continue
		}
		if unit, dt, _ := strings.Cut(k, "."); unit == "cube" && NoMatrixUnit(prof, dt) {
			if _, ok := prof.Roof("vector." + dt); ok {
				aliased = true
				continue
			}
		}
		keys = append(keys, k)
	}
	return keys, aliased
}
