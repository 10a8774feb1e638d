package benchreport

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

func defaultCatalog(t testing.TB) *catalog.Catalog {
	t.Helper()
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A bench report is read strictly: a key given twice (last-wins before),
// a field the schema does not have (ignored before, a misspelt scenario
// with it), data after the report (ignored before) are refused, naming
// the field and the byte.
func TestDocumentStrict(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleDocument().Encode(&buf); err != nil {
		t.Fatal(err)
	}
	good := buf.String()
	for _, tc := range []struct {
		name, in, want string
	}{
		{"value twice", strings.Replace(good, `"value": 769,`, `"value": 769, "value": 1e300,`, 1), "field measurements[0].value at byte"},
		{"unknown field", strings.Replace(good, `"samples": 10,`, `"samples": 10, "sampels": 11,`, 1), "field measurements[0].sampels at byte"},
		{"unknown workload field", strings.Replace(good, `"measurements": [`, `"workloads": [{"name": "resnet50", "device": "gpu0", "batch": 8, "value": 1, "unit": "samples/s", "scenaro": "cv-training"}], "measurements": [`, 1), "field workloads[0].scenaro at byte"},
		{"trailing", good + `{"schema_version": 1}`, "data after the JSON value"},
		{"huge", strings.Replace(good, `"value": 769,`, `"value": 1e3000000,`, 1), "number 1e3000000 is outside the allowed range"},
	} {
		_, err := DecodeDocument(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "not a bench report: ") {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := DecodeDocument(strings.NewReader(good + "\n\n")); err != nil {
		t.Errorf("trailing whitespace: %v", err)
	}
}

// advise --bench (Read) and the server check figures against the GPU's
// datasheet in one place: an A100 at 3000 or 99999 bf16 TFLOP/s (its dense
// peak is 312) was read and re-ranked every plan; more than twice the
// datasheet is refused, above it a warning, at it nothing.
func TestReadChecksDatasheet(t *testing.T) {
	c := defaultCatalog(t)
	for _, tc := range []struct {
		name, in, err, warn string
	}{
		{"3000 TFLOP/s", `{"gpu": "A100-SXM4-80GB", "gemm_tflops": {"bf16": 3000}}`, "gemm_tflops.bf16 = 3000 TFLOP/s is 9.62× the A100-SXM4-80GB datasheet's 312 TFLOP/s; want at most 2× it", ""},
		{"99999 TFLOP/s", `{"gpu": "A100-SXM4-80GB", "gemm_tflops": {"bf16": 99999}}`, "gemm_tflops.bf16 = 99999 TFLOP/s", ""},
		{"bandwidth", `{"gpu": "A100-SXM4-80GB", "memory_bandwidth_gbs": 9000}`, "memory_bandwidth_gbs = 9000 GB/s is 4.41× the A100-SXM4-80GB datasheet's 2039 GB/s", ""},
		{"twice", `{"gpu": "A100-SXM4-80GB", "gemm_tflops": {"bf16": 624}}`, "", "gemm_tflops.bf16 = 624 TFLOP/s is 200% of the A100-SXM4-80GB datasheet's 312 TFLOP/s"},
		{"above", `{"gpu": "A100-SXM4-80GB", "gemm_tflops": {"bf16": 320}}`, "", "is 103% of the A100-SXM4-80GB datasheet's 312 TFLOP/s"},
		{"at", `{"gpu": "A100-SXM4-80GB", "gemm_tflops": {"bf16": 312}, "memory_bandwidth_gbs": 1700}`, "", ""},
		{"no datasheet figure", `{"gpu": "A10G", "gemm_tflops": {"bf16": 5000}}`, "", ""},
	} {
		r, _, err := Read([]byte(tc.in), "r.json", c)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) || !strings.HasPrefix(err.Error(), "r.json: ") {
				t.Errorf("%s: got %v, want %q", tc.name, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.warn == "" && len(r.Warnings) > 0, tc.warn != "" && (len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], tc.warn)):
			t.Errorf("%s: warnings %q, want %q", tc.name, r.Warnings, tc.warn)
		}
	}
}

// A document's figures are checked by their device's GPU: the H200's
// sample at 769 of 989 passes; edited to 1e308 (its stored efficiency
// unchanged) it is refused; the CPU's figures have no datasheet.
func TestDocumentCheckDatasheet(t *testing.T) {
	c := defaultCatalog(t)
	d := sampleDocument()
	if w, err := d.CheckDatasheet(c); err != nil || len(w) != 0 {
		t.Fatalf("sample: %q, %v", w, err)
	}
	d.Measurements[0].Value = F(1e308)
	if _, err := d.CheckDatasheet(c); err == nil || !strings.Contains(err.Error(), "measurements[0] (gemm_bf16 on gpu0) = 1e+308 TFLOP/s is 1.01e+305× the H200-SXM-141GB datasheet's 989 TFLOP/s") {
		t.Errorf("1e308: got %v", err)
	}
	d = sampleDocument()
	d.Measurements[5].Value = F(1e6) // cpu_mem_copy: no datasheet
	d.GPUs[0].CanonicalGPU = nil     // the driver's name still finds the H200
	d.Measurements[3].Value = F(5000)
	w, err := d.CheckDatasheet(c)
	if err != nil || len(w) != 1 || !strings.Contains(w[0], "measurements[3] (hbm_copy on gpu0) = 5000 GB/s is 104% of the H200-SXM-141GB datasheet's 4800 GB/s") {
		t.Errorf("got %q, %v", w, err)
	}
}

// Compare computes each efficiency from the value and the datasheet: a
// report edited to 1e+308 TFLOP/s printed "1e+308 (78%)", its stored
// efficiency; a measurement with none stored shows none.
func TestCompareComputesEfficiency(t *testing.T) {
	c := defaultCatalog(t)
	edited := sampleDocument()
	edited.Measurements[0].Value = F(494.5) // stored efficiency still 0.7776
	edited.Measurements[5].Efficiency = F(0.5)
	cmp := Compare([]string{"a", "b"}, []*Document{sampleDocument(), edited}, c)
	row := cmp.Rows[0]
	if row.Name != "gemm_bf16" || *row.Values[0].Efficiency != 0.7776 || *row.Values[1].Efficiency != 0.5 {
		t.Errorf("gemm_bf16: got %v and %v, want 0.7776 (769 ÷ 989) and 0.5 (494.5 ÷ 989)", *row.Values[0].Efficiency, *row.Values[1].Efficiency)
	}
	for _, r := range cmp.Rows {
		if r.Name == "cpu_mem_copy" && (r.Values[0].Efficiency != nil || r.Values[1].Efficiency != nil) {
			t.Errorf("the CPU's copy has no datasheet figure: got %v, %v", r.Values[0].Efficiency, r.Values[1].Efficiency)
		}
	}
	if n := CompareRows([]*Document{sampleDocument(), edited}); n != len(cmp.Rows) {
		t.Errorf("CompareRows = %d, Compare made %d", n, len(cmp.Rows))
	}
}

func TestCheckScenarios(t *testing.T) {
	r := &Report{GPU: "A10G", ScenarioThroughput: map[string]float64{"cv-training": 1, "cv-trainign": 2}}
	if err := r.CheckScenarios([]string{"cv-training", "llm-finetuning"}); err == nil || err.Error() != "scenario_throughput.cv-trainign (or a workload's scenario): no such scenario; want one of cv-training, llm-finetuning" {
		t.Errorf("got %v", err)
	}
	delete(r.ScenarioThroughput, "cv-trainign")
	if err := r.CheckScenarios([]string{"cv-training"}); err != nil {
		t.Errorf("known scenario: %v", err)
	}
}

// FuzzDecode: no input panics the report reader; what it accepts is
// valid, its figures within their bounds.
func FuzzDecode(f *testing.F) {
	var buf bytes.Buffer
	if err := sampleDocument().Encode(&buf); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Add([]byte(`{"gpu": "NVIDIA A10G", "gemm_tflops": {"bf16": 70}, "memory_bandwidth_gbs": 500, "scenario_throughput": {"cv-training": 2}}`))
	f.Add([]byte(`{"schema_version": 1, "gpus": [{"index": 0, "name": "NVIDIA H200"}], "measurements": [{"name": "gemm_bf16", "device": "gpu0", "value": 700, "unit": "TFLOP/s", "status": "ok", "efficiency": null, "samples": 1}]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := Decode(bytes.NewReader(b))
		if err != nil {
			if r != nil {
				t.Fatal("a report with an error")
			}
			return
		}
		if !json.Valid(b) {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("accepted a report that does not validate: %v", err)
		}
		if d, err := DecodeDocument(bytes.NewReader(b)); err == nil {
			if err := d.Validate(); err != nil {
				t.Fatalf("accepted a document that does not validate: %v", err)
			}
			_ = Compare([]string{"a"}, []*Document{d}, nil)
		}
	})
}

// Settings record the environment that changes a figure (NCCL_ALGO,
// NVIDIA_TF32_OVERRIDE): they survive a round trip and go with the value
// into a comparison; a name that is no environment variable's is refused.
func TestSettings(t *testing.T) {
	d := sampleDocument()
	d.Measurements[4] = Measurement{Name: "nccl_allreduce_busbw", Device: "node", Value: F(350), Unit: "GB/s", Status: StatusOK,
		Settings: map[string]string{"NCCL_ALGO": "NVLS", "NCCL_PROTO": "Simple"}}
	var buf bytes.Buffer
	if err := d.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), `"settings": {
        "NCCL_ALGO": "NVLS",`) {
		t.Errorf("settings not written as an object:\n%s", buf.String())
	}
	back, err := DecodeDocument(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if got := back.Measurements[4].Settings; len(got) != 2 || got["NCCL_ALGO"] != "NVLS" || got["NCCL_PROTO"] != "Simple" {
		t.Errorf("settings read back as %v", got)
	}
	other := sampleDocument()
	other.Measurements[4] = d.Measurements[4]
	other.Measurements[4].Settings = map[string]string{"NCCL_ALGO": "Ring"}
	cmp := Compare([]string{"nvls", "ring"}, []*Document{back, other}, nil)
	for _, r := range cmp.Rows {
		if r.Name == "nccl_allreduce_busbw" && (r.Values[0].Settings["NCCL_ALGO"] != "NVLS" || r.Values[1].Settings["NCCL_ALGO"] != "Ring") {
			t.Errorf("compare settings %v and %v", r.Values[0].Settings, r.Values[1].Settings)
		}
	}
	for _, bad := range []map[string]string{{"nccl_algo": "x"}, {"": "x"}, {"1X": "y"}, {"A B": "y"}, {"NCCL_ALGO": strings.Repeat("x", 300)}} {
		d.Measurements[4].Settings = bad
		if err := d.Validate(); err == nil || !strings.Contains(err.Error(), "measurements[4] (nccl_allreduce_busbw): settings[") {
			t.Errorf("settings %v: got %v", bad, err)
		}
	}
}
