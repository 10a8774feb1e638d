package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeJSON writes body into a file of a test's folder.
func writeTemp(t *testing.T, name, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// advise --bench checks a report as the server checks an upload: an A100
// at 3000 or 99999 bf16 TFLOP/s (312 on its datasheet) was read and
// re-ranked every plan; a misspelt field or scenario was ignored; a key
// given twice was taken last-wins. Each is a usage error naming the file
// and the field; a figure above the datasheet but under twice it is read,
// with a warning on stderr.
func TestAdviseBenchChecksReports(t *testing.T) {
	base := []string{"advise", "--scenario", "cv-training", "--gpu", "A100:4", "--for", "7d", "--no-user-catalog", "--no-spot", "--limit", "1", "--bench"}
	for _, tc := range []struct {
		name, body, want string
		code             int
	}{
		{"3000 TFLOP/s", `{"gpu": "A100-SXM4-80GB", "gemm_tflops": {"bf16": 3000}}`, "gemm_tflops.bf16 = 3000 TFLOP/s is 9.62× the A100-SXM4-80GB datasheet's 312 TFLOP/s; want at most 2× it", ExitUsage},
		{"99999 TFLOP/s", `{"gpu": "A100-SXM4-80GB", "gemm_tflops": {"bf16": 99999}}`, "gemm_tflops.bf16 = 99999 TFLOP/s is 321× the A100-SXM4-80GB datasheet's 312", ExitUsage},
		{"unknown scenario", `{"gpu": "A100-SXM4-80GB", "scenario_throughput": {"cv-trainig": 2470}}`, "scenario_throughput.cv-trainig (or a workload's scenario): no such scenario; want one of", ExitUsage},
		{"unknown field", `{"gpu": "A100-SXM4-80GB", "gemm_tflop": {"bf16": 250}}`, "field gemm_tflop at byte 26: unknown field", ExitUsage},
		{"twice", `{"gpu": "A100-SXM4-80GB", "gemm_tflops": {"bf16": 250}, "gemm_tflops": {"bf16": 3000}}`, "field gemm_tflops at byte 56: given twice", ExitUsage},
		{"above the datasheet", `{"gpu": "A100-SXM4-80GB", "gemm_tflops": {"bf16": 330}}`, "warning: --bench ", 0},
	} {
		path := writeTemp(t, "r.json", tc.body)
		_, errOut, code := run(t, append(base, path)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s: exit %d %q, want %d saying %q", tc.name, code, errOut, tc.code, tc.want)
		}
		if tc.code == ExitUsage && !strings.Contains(errOut, path) {
			t.Errorf("%s: %q does not name the file", tc.name, errOut)
		}
	}
}

// bench compare computes the efficiency from the value: a report edited to
// 494.5 TFLOP/s printed its stored 78%; one edited to 1e308 is refused as
// advise --bench refuses it; a key given twice is refused.
func TestBenchCompareChecksReports(t *testing.T) {
	b, err := os.ReadFile("testdata/bench-h200-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	edit := func(v float64) string {
		var doc map[string]any
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		for _, m := range doc["measurements"].([]any) {
			if mm := m.(map[string]any); mm["name"] == "gemm_bf16" {
				mm["value"] = v
			}
		}
		out, _ := json.Marshal(doc)
		return string(out)
	}
	edited := writeTemp(t, "edited.json", edit(494.5))
	out, errOut, code := run(t, "bench", "compare", "testdata/bench-h200-v1.json", edited)
	if code != 0 {
		t.Fatalf("exit %d %s", code, errOut)
	}
	if row := lineOf(out, "gemm_bf16 "); !strings.Contains(row, "769 (78%)") || !strings.Contains(row, "494.5 (50%)") {
		t.Errorf("gemm_bf16: %q, want 769 (78%%) and 494.5 (50%%)", row)
	}
	huge := writeTemp(t, "huge.json", edit(1e12))
	if _, errOut, code := run(t, "bench", "compare", huge); code != ExitUsage || !strings.Contains(errOut, "huge.json: measurements[2] (gemm_bf16 on gpu0) = 1e+12 TFLOP/s is 1.01e+09× the H200-SXM-141GB datasheet's 989 TFLOP/s") {
		t.Errorf("1e12 TFLOP/s: exit %d %q, want 2 naming the measurement", code, errOut)
	}
	twice := writeTemp(t, "twice.json", strings.Replace(string(b), `"schema_version": 1,`, `"schema_version": 1, "schema_version": 1,`, 1))
	if _, errOut, code := run(t, "bench", "compare", twice); code != ExitUsage || !strings.Contains(errOut, "field schema_version at byte") {
		t.Errorf("a key twice: exit %d %q, want 2 naming it", code, errOut)
	}
}

// lineOf is the first line of s that contains sub.
func lineOf(s, sub string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return l
		}
	}
	return ""
}
