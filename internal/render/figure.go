package render

import (
	"math"
	"strconv"
)

// Figure writes a measured figure (TFLOP/s, GB/s, samples/s, efficiency) in
// one way for every command and page: four significant digits, whole
// numbers kept whole up to 10^7, and the exponent form beyond 10^7 or below
// 10^-4, so that no value prints hundreds of digits.
func Figure(v float64) string {
	a := math.Abs(v)
	switch {
	case v == 0 || math.IsNaN(v) || math.IsInf(v, 0):
		return strconv.FormatFloat(v, 'f', -1, 64)
	case a >= 1e7 || a < 1e-4:
		return strconv.FormatFloat(v, 'g', 4, 64)
	}
	digits := max(0, 3-int(math.Floor(math.Log10(a))))
	p := math.Pow(10, float64(digits))
	return strconv.FormatFloat(math.Round(v*p)/p, 'f', -1, 64)
}
