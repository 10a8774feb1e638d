package server

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// A gpu filter means what the catalog queries take: a family or alias
// selects every variant (the stored reports carry canonical names, so
// ?gpu=H200 answered an empty list for an H200 report); a name the catalog
// does not know matches exactly, as before.
func TestListFilterGPUByFamily(t *testing.T) {
	f := newFixture(t, nil)
	a10g, err := os.ReadFile("../cli/testdata/bench-a10g-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range [][]byte{report(t), a10g} { // H200-SXM-141GB, A10G
		if w := f.do(t, "POST", "/api/v1/reports", f.write, body); w.Code != 201 {
			t.Fatalf("upload: got %d %s", w.Code, w.Body)
		}
	}
	for _, tc := range []struct {
		query string
		want  []string // the GPUs of the reports listed
	}{
		{"gpu=H200", []string{"H200-SXM-141GB"}},
		{"gpu=h200", []string{"H200-SXM-141GB"}},
		{"gpu=H200-SXM-141GB", []string{"H200-SXM-141GB"}},
		{"gpu=A10G", []string{"A10G"}},
		{"gpu=H100", nil},
		{"gpu=H200&kind=plan", nil},
		{"gpu=NVIDIA%20Z9", nil},
		{"gpu=%27%29%20OR%20%28%271%27%3D%271", nil},
	} {
		w := f.do(t, "GET", "/api/v1/reports?"+tc.query, f.read, nil)
		var got struct{ Reports []docSummary }
		decode(t, w, &got)
		var gpus []string
		for _, r := range got.Reports {
			gpus = append(gpus, r.GPU)
		}
		if w.Code != 200 || len(gpus) != len(tc.want) || (len(gpus) > 0 && gpus[0] != tc.want[0]) {
			t.Errorf("?%s: got %d %v, want 200 %v", tc.query, w.Code, gpus, tc.want)
		}
	}
}

// An upload with a figure no machine measures is refused with the field
// named: 1e308 TFLOP/s passed the schema (finite, ≥ 0) and then ranked
// first on the leaderboard. The bounds' edges pass.
func TestUploadRefusesImplausibleFigures(t *testing.T) {
	f := newFixture(t, nil)
	for _, tc := range []struct {
		name, measurement, field string
		value                    float64
		want                     int
		problem                  string
	}{
		{"1e308 TFLOP/s", "gemm_bf16", "value", 1e308, 400, "measurements[0] (gemm_bf16): value = 1e+308 TFLOP/s; want at most 100000 TFLOP/s"},
		{"100001 TFLOP/s", "gemm_bf16", "value", 100001, 400, "want at most 100000 TFLOP/s"},
		{"100000 TFLOP/s", "gemm_bf16", "value", 100000, 201, ""},
		{"2e5 GB/s", "hbm_copy", "value", 2e5, 400, "(hbm_copy): value = 200000 GB/s; want at most 100000 GB/s"},
		{"efficiency 11", "gemm_bf16", "efficiency", 11, 400, "(gemm_bf16): efficiency = 11; want at most 10"},
	} {
		var doc map[string]any
		if err := json.Unmarshal(report(t), &doc); err != nil {
			t.Fatal(err)
		}
		for _, m := range doc["measurements"].([]any) {
			if mm := m.(map[string]any); mm["name"] == tc.measurement {
				mm[tc.field] = tc.value
			}
		}
		body, _ := json.Marshal(doc)
		w := f.do(t, "POST", "/api/v1/reports", f.write, body)
		var e apiError
		if w.Code == 400 {
			decode(t, w, &e)
		}
		if w.Code != tc.want || (tc.problem != "" && (len(e.Error.Fields) == 0 || e.Error.Fields[0].Field != "body" || !strings.Contains(e.Error.Fields[0].Problem, tc.problem))) {
			t.Errorf("%s: got %d %s, want %d saying %q", tc.name, w.Code, w.Body, tc.want, tc.problem)
		}
	}
}
