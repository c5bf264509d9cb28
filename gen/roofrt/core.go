package roofrt

// rooflineNumber is the element type of the arithmetic layer: int for the result, float64
// for the overflow shadow.
type rooflineNumber interface{ int | float64 }

// rooflineTensor is what a vars-layer formula sees of an input: x.shape and x.ndim.
type rooflineTensor struct {
	shape []int
	ndim  int
}
