// Package formulas holds the hand-written func-mode roofline formulas (docs/model.md §7.1): Go
// functions for the manifest entries whose counts an inline formula cannot state, such as
// attention, whose inputs take independent dtypes. For an entry with
// `roofline: {func: "formulas.X"}` the generator emits `return formulas.X(op)` as the op's
// EvalRoofline body and checks that the op type is assignable to X's parameter.
//
// This package must never import ops (the generator loads it to type-check bindings, and
// ops imports it): each formula takes a small interface that the op type implements by
// hand. Every formula returns (flops, bytes int64, err error) and reports overflow and
// impossible shapes as errors, never as a wrapped or guessed number.
package formulas
