package cost

import (
	"strings"
	"testing"
)

// A usage file's error found after parsing (by Validate) names the line of
// the field at fault, not the file's first line; a file above 64 KiB is
// refused before it is parsed.
func TestUsageFileErrorLines(t *testing.T) {
	for _, tc := range []struct {
		text string
		want string
	}{
		{"gpu: A100:8\nduration: 7d\nhorizon: 30s\n", "u.yaml:3:"},
		{"gpu: A100:8\nduration: 7d\nhorizon: 1d\n", "u.yaml:2:"},
		{"gpu: A100:8\ninstances: 2\nhours_per_month: 100\nhorizon: 1y\nspot:\n  checkpoint: 0s\n", "u.yaml:6:"},
		{"gpu: A100:8\nhours_per_month: 0.001\n", "u.yaml:2: field hours_per_month"},
	} {
		_, err := ParseSpec("u.yaml", []byte(tc.text))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q: err = %v, want it to start %q", tc.text, err, tc.want)
		}
	}
	big := []byte("gpu: A100:8\nduration: 7d\n" + strings.Repeat("# padding\n", 7000))
	if _, err := ParseSpec("u.yaml", big); err == nil || !strings.Contains(err.Error(), "64 KiB") {
		t.Errorf("a 70 KB usage file: err = %v, want the 64 KiB limit", err)
	}
}
