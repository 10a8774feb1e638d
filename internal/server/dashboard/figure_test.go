package dashboard

import "testing"

// figure writes four significant digits, whole numbers up to 1e7 and the
// exponent form beyond, never hundreds of digits.
func TestFigure(t *testing.T) {
	for _, tc := range []struct {
		v    float64
		want string
	}{
		{0, "0"}, {671.2, "671.2"}, {0.001866, "0.001866"}, {4239, "4239"}, {9999999, "9999999"},
		{1e7, "1e+07"}, {12345678, "1.235e+07"}, {1e308, "1e+308"}, {-2.5e9, "-2.5e+09"}, {1e-300, "1e-300"},
	} {
		if got := figure(tc.v); got != tc.want {
			t.Errorf("figure(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
}
