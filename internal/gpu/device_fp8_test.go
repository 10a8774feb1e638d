package gpu

import "testing"

// FP8 (E4M3) tensor cores came with compute capability 8.9 (Ada: L4, L40S)
// and 9.0 (Hopper); Ampere (8.0, 8.6) and older have none.
func TestHasFP8(t *testing.T) {
	for _, tc := range []struct {
		cc      string
		has, ok bool
	}{{"9.0", true, true}, {"8.9", true, true}, {"10.0", true, true}, {"12.0", true, true}, {"8.6", false, true}, {"8.0", false, true},
		{"7.0", false, true}, {"", false, false}, {"9", false, false}, {"x.y", false, false}} {
		if has, ok := HasFP8(tc.cc); has != tc.has || ok != tc.ok {
			t.Errorf("HasFP8(%q) = %v, %v; want %v, %v", tc.cc, has, ok, tc.has, tc.ok)
		}
	}
}

// An FP8 product writes bf16 and takes A transposed (cuBLASLt's TN
// layout); the other types write their own type, A as it is.
func TestGemmLayout(t *testing.T) {
	for _, dt := range []DType{FP32, TF32, BF16, FP16, FP8, FP64} {
		out, trans := dt, false
		if dt == FP8 {
			out, trans = BF16, true
		}
		if dt.GemmOutput() != out || dt.GemmTransA() != trans {
			t.Errorf("%s: output %s, A transposed %v; want %s, %v", dt, dt.GemmOutput(), dt.GemmTransA(), out, trans)
		}
	}
}
