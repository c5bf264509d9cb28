package render

import "math"

// blank is a cell with no value (report.Blank reads it).
var blank = math.NaN()
