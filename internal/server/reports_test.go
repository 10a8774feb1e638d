package server

import (
	"os"
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
