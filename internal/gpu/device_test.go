package gpu

import "testing"

func TestDTypeNames(t *testing.T) {
	for d := FP32; d <= FP64; d++ {
		got, err := ParseDType(d.String())
		if err != nil || got != d {
			t.Errorf("ParseDType(%q) = %v, %v; want %v", d.String(), got, err, d)
		}
	}
	if _, err := ParseDType("int4"); err == nil {
		t.Error("ParseDType(int4): no error")
	}
	for d, want := range map[DType]int{FP32: 4, TF32: 4, BF16: 2, FP16: 2, FP8: 1, FP64: 8} {
		if got := d.ElemBytes(); got != want {
			t.Errorf("%v.ElemBytes() = %d, want %d", d, got, want)
		}
	}
}
