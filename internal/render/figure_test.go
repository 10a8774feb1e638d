package render

import "testing"

// Figure writes four significant digits, whole numbers up to 1e7 and the
// exponent form beyond, never hundreds of digits.
func TestFigure(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {671.2, "671.2"}, {0.001866, "0.001866"}, {4239, "4239"}, {9999999, "9999999"},
		{1e7, "1e+07"}, {12345678, "1.235e+07"}, {1e308, "1e+308"}, {-2.5e9, "-2.5e+09"}, {1e-300, "1e-300"}, {12345.6, "12346"}, {0.012345, "0.01235"}, {-671.25, "-671.3"},
	} {
		if got := Figure(tc.v); got != tc.want {
			t.Errorf("Figure(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
