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

// TestRetiredSizes: offers and cost skip Azure's retired NCv3 sizes; offers
// --include-retired lists them, marked, with the retirement notice.
func TestRetiredSizes(t *testing.T) {
	out, errOut, code := run(t, "offers", "--provider", "azure", "--gpu", "V100")
	// NCv3 ×4 (retired 2025-09-30) and ND40s_v2 (2020-02-03); ND40rs_v2 is sold.
	if code != 0 || strings.Contains(out, "NC6s_v3") || !strings.Contains(out, "Standard_ND40rs_v2") || !strings.Contains(out, "5 retired size(s) also match; list them with --include-retired") {
		t.Errorf("offers without --include-retired: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = run(t, "offers", "--provider", "azure", "--gpu", "V100", "--include-retired", "--wide")
	if code != 0 || !strings.Contains(out, "Standard_NC24rs_v3 (retired 2025-09-30)") || !strings.Contains(out, "azure-ncv3-retirement <https://learn.microsoft.com/") {
		t.Errorf("offers --include-retired: exit %d\n%s%s", code, out, errOut)
	}
	out, _, _ = run(t, "cost", "--gpu", "V100", "--provider", "azure", "--for", "7d", "-o", "json")
	if strings.Contains(out, "NC6s_v3") || strings.Contains(out, "NC24s_v3") {
		t.Errorf("cost --gpu V100 priced a retired size:\n%s", out)
	}
}
