// Package render writes priced rows (perf/report) for people and for programs: the aligned
// table and the summary, CSV and JSON, the roofline SVG, the HTML page and the markdown
// summary, and the comparison of two runs with its own table, CSV and JSON. It prices
// nothing: every number it writes comes from a report.Row or a Comparison.
package render
