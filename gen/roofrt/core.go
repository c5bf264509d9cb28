package roofrt

// rooflineTensor is what a vars-layer formula sees of an input: x.shape and x.ndim.
type rooflineTensor struct {
	shape []int
	ndim  int
}
