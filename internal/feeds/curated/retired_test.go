package curated

import (
	"strings"
	"testing"
)

// TestRetiredNeedsDateAndSource: a retirement is a dated, cited fact.
func TestRetiredNeedsDateAndSource(t *testing.T) {
	const head = "provider: x\ninstances:\n  - {type: a, gpu: T4, gpu_count: 1, vcpus: 1, memory_gib: 1, "
	for name, tc := range map[string]struct{ in, want string }{
		"no source":    {head + "retired: 2025-09-30}\n", "retired_source"},
		"bad date":     {head + "retired: 30/9/25, retired_source: s}\n", `retired "30/9/25"`},
		"source alone": {head + "retired_source: s}\n", "without a retired date"},
	} {
		_, err := Parse(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, tc.want)
		}
	}
	f, err := Parse(strings.NewReader(head + "retired: 2025-09-30, retired_source: s}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if in := f.Instance("a"); in.Retired != "2025-09-30" || in.RetiredSource != "s" {
		t.Errorf("retired %q from %q, want 2025-09-30 from s", in.Retired, in.RetiredSource)
	}
}
