package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestMinGPUMemoryClass: --min-gpu-memory 80GB keeps the H100 80 GB rows a
// feed lists at 79.6 GiB (NVML's usable memory), and the flag is bounded.
func TestMinGPUMemoryClass(t *testing.T) {
	out, errOut, code := run(t, "offers", "--min-gpu-memory", "80GB", "--provider", "vast", "--gpu", "H100-SXM5-80GB", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var rows []struct {
		InstanceType string  `json:"instance_type"`
		GPUMemoryGiB float64 `json:"gpu_memory_gib"`
	}
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	found := false
	for _, r := range rows {
		found = found || (r.InstanceType == "1x-H100_SXM-32-65536" && r.GPUMemoryGiB == 79.6)
	}
	if !found {
		t.Errorf("1x-H100_SXM-32-65536 at 79.6 GiB missing from an 80GB query: %s", out)
	}
	for _, bad := range []string{"2000GB", "-1GB"} {
		_, errOut, code := run(t, "offers", "--min-gpu-memory", bad)
		if code != ExitUsage || !strings.Contains(errOut, "--min-gpu-memory") || !strings.Contains(errOut, "0 to 1024GB") {
			t.Errorf("--min-gpu-memory %s: exit %d, stderr %q; want 2 naming the flag and the range", bad, code, errOut)
		}
	}
}
