package main

var sink uint64

// inlined into nested
func grow(k int) []byte { return make([]byte, k*100) }

func nested(n int) {
	for i := 0; i < n; i++ {
		keep = append(keep, grow(i+1))
	}
}

func spin(n int) {
	s := sink
	for i := 0; i < n; i++ {
		s = s*31 + uint64(i)
		s ^= s >> 7
	}
	sink = s
}
