package doctor

import (
	"strings"
	"testing"
)

// TestCUDAFits: NVIDIA's minimum drivers (CUDA 13.x ≥ 580, 12.x ≥
// 525.60.13, 11.x ≥ 450.80.02) decide fail; a driver whose own CUDA version
// is older than the build's, within the major release, is a warning.
func TestCUDAFits(t *testing.T) {
	tests := []struct {
		driver, driverCUDA, built string
		want                      Status
		wantIn                    string
	}{
		{"580.159.04", "13.0", "13.0", StatusOK, "needs ≥ 580"},       // the H200 node
		{"580.159.04", "13.0", "12.8", StatusOK, "needs ≥ 525.60.13"}, // older builds run on newer drivers
		{"580.159.04", "13.0", "13.1", StatusWarn, "minor version compatibility"},
		{"575.57.08", "12.9", "13.0", StatusFail, "needs driver ≥ 580"},
		{"525.60.13", "12.0", "12.1", StatusWarn, "minor version compatibility"},
		{"525.60.11", "12.0", "12.1", StatusFail, "needs driver ≥ 525.60.13"},
		{"470.82.01", "11.4", "12.1", StatusFail, "this driver is 470.82.01"},
		{"470.82.01", "11.4", "11.8", StatusWarn, "supports CUDA 11.4"},
		{"450.80.02", "11.0", "11.0", StatusOK, ""},
		{"450.51.06", "11.0", "11.0", StatusFail, "450.80.02"},
		{"580.159.04", "13.0", "9.2", StatusWarn, "no published minimum"},
		{"garbage", "13.0", "13.0", StatusWarn, "cannot compare"},
	}
	for _, tt := range tests {
		got, detail := cudaFits(tt.driver, tt.driverCUDA, tt.built)
		if got != tt.want || !strings.Contains(detail, tt.wantIn) {
			t.Errorf("cudaFits(%s, %s, %s) = %s %q; want %s containing %q", tt.driver, tt.driverCUDA, tt.built, got, detail, tt.want, tt.wantIn)
		}
	}
}

func TestVersionAtLeast(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		{"580.159.04", "580", true}, {"580", "580.0.0", true}, {"579.99", "580", false},
		{"525.60.13", "525.60.13", true}, {"525.60.9", "525.60.13", false}, {"2.11.0+cu130", "2.11", true},
	}
	for _, tt := range tests {
		if got := versionAtLeast(parseVersion(tt.a), parseVersion(tt.b)); got != tt.want {
			t.Errorf("%s ≥ %s = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}
