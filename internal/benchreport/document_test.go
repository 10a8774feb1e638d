package benchreport

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite golden files")

// sampleDocument is a one-H200 report with the figures of
// shared/data/gpu/h200-2026-11-30 (the probe's bf16 GEMM and device copy, the
// 20 s load's sustained bf16), and the host CPU's copy.
func sampleDocument() *Document {
	h200 := "H200-SXM-141GB"
	return &Document{
		SchemaVersion: SchemaVersion,
		CreatedAt:     time.Date(2026, 11, 30, 21, 4, 5, 0, time.UTC),
		Host:          Host{Hostname: "node-1", CPUModel: "AMD EPYC 9454 48-Core Processor", Cores: 16, MemoryGiB: 125.7},
		GPUs: []GPUEntry{{Index: 0, Name: "NVIDIA H200", CanonicalGPU: &h200, MemoryGiB: 140.4, Driver: "580.159.04",
			UUID: "GPU-00000000-0000-0000-0000-000000000000", CUDA: "13.0", ComputeCap: "9.0", Multiprocs: 132, Virtualization: "PASSTHROUGH"}},
		Measurements: []Measurement{
			{Name: "gemm_bf16", Device: "gpu0", Value: F(769), Unit: "TFLOP/s", Efficiency: F(0.7776), Samples: 10, P50US: F(1429.8), P99US: F(1441.5), CV: F(0.004), Status: StatusOK},
			{Name: "gemm_bf16_sustained", Device: "gpu0", Value: F(671.2), Unit: "TFLOP/s", Efficiency: F(0.6787), Samples: 12080, P50US: F(1638), P99US: F(1714.3), CV: F(0.0236), Status: StatusOK, ClockReasons: []string{"sw_power_cap"}},
			{Name: "gemm_fp8", Device: "gpu0", Unit: "TFLOP/s", Status: StatusUnsupported, Detail: "not supported on this device"},
			{Name: "hbm_copy", Device: "gpu0", Value: F(4239), Unit: "GB/s", Efficiency: F(0.8831), Samples: 10, Status: StatusOK},
			{Name: "nccl_allreduce_busbw", Device: "node", Unit: "GB/s", Status: StatusUnsupported, Detail: "one GPU: all-reduce needs two or more"},
			{Name: "cpu_mem_copy", Device: "cpu", Value: F(20), Unit: "GB/s", Samples: 5, Status: StatusOK},
		},
	}
}

// The schema as written: a golden file, read back equal.
func TestDocumentGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleDocument().Encode(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "report-v1.json")
	if *update {
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./internal/benchreport -update writes it)", err)
	}
	if buf.String() != string(want) {
		t.Errorf("report differs from %s (-update rewrites it)\n--- got\n%s\n--- want\n%s", path, buf.String(), want)
	}
	back, err := DecodeDocument(bytes.NewReader(want))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, sampleDocument()) {
		t.Errorf("read back:\n%+v\nwant\n%+v", back, sampleDocument())
	}
	// The contract's fields are all there, with null for unknowns.
	for _, field := range []string{`"schema_version": 1`, `"created_at"`, `"cloud": null`, `"canonical_gpu": "H200-SXM-141GB"`, `"efficiency": null`, `"value": null`, `"samples": 10`, `"memory_gib"`, `"cpu_model"`} {
		if !strings.Contains(buf.String(), field) {
			t.Errorf("report has no %s", field)
		}
	}
}

func TestDocumentValidate(t *testing.T) {
	for _, tc := range []struct {
		edit func(d *Document)
		want string
	}{
		{func(d *Document) {}, ""},
		{func(d *Document) { d.SchemaVersion = 2 }, "schema_version 2: this gpuscout reads version 1"},
		{func(d *Document) { d.GPUs[0].Name = "" }, "gpus[0].name is missing"},
		{func(d *Document) { d.GPUs = append(d.GPUs, d.GPUs[0]) }, "gpus[1].index = 0; want a distinct index"},
		{func(d *Document) { d.Measurements[0].Status = "great" }, `measurements[0] (gemm_bf16): status "great"`},
		{func(d *Document) { d.Measurements[0].Value = nil }, "status ok but value is null"},
		{func(d *Document) { d.Measurements[3].Value = F(-1) }, "measurements[3] (hbm_copy): value = -1; want a finite number ≥ 0"},
		{func(d *Document) { d.Measurements[1].Device = "" }, "device is missing"},
		{func(d *Document) { d.Workloads = []Workload{{Name: "resnet50", Value: -2}} }, "workloads[0] (resnet50)"},
		{func(d *Document) { d.Host.Cores = -4 }, "host.cores = -4; want 0 (unknown) to 65536 logical CPUs"},
		{func(d *Document) { d.Host.MemoryGiB = -1 }, "host.memory_gib = -1"},
		{func(d *Document) { d.GPUs[0].MemoryGiB = -80 }, "gpus[0].memory_gib = -80"},
		{func(d *Document) { d.GPUs[0].Multiprocs = -1 }, "gpus[0].multiprocessors = -1"},
		{func(d *Document) { d.GPUs[0].PowerLimitW = -700 }, "gpus[0].power_limit_w = -700"},
	} {
		d := sampleDocument()
		tc.edit(d)
		err := d.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("got %v, want %q", err, tc.want)
		}
	}
}

// advise reads the new format through Decode: the sustained GEMM figure of
// the GPUs (median over GPUs), never the CPU's; failed figures are skipped.
func TestDerive(t *testing.T) {
	two := sampleDocument()
	two.GPUs = append(two.GPUs, two.GPUs[0])
	two.GPUs[1].Index = 1
	two.Measurements = append(two.Measurements,
		Measurement{Name: "gemm_bf16", Device: "gpu1", Value: F(700), Unit: "TFLOP/s", Status: StatusOK}, // no sustained on gpu1: its plain figure counts
		Measurement{Name: "hbm_copy", Device: "gpu1", Value: F(4000), Unit: "GB/s", Status: StatusOK},
		Measurement{Name: "gemm_fp16", Device: "gpu1", Unit: "TFLOP/s", Status: StatusFailed, Detail: "wrong result"},
		Measurement{Name: "gemm_fp32", Device: "cpu", Value: F(0.2), Unit: "TFLOP/s", Status: StatusOK},
		Measurement{Name: "nccl_allreduce_busbw", Device: "node", Value: F(360), Unit: "GB/s", Status: StatusOK},
	)
	two.Workloads = []Workload{{Name: "resnet50", Device: "gpu0", Batch: 256, Value: 2900, Unit: "samples/s", Scenario: "cv-training"},
		{Name: "resnet50", Device: "cpu", Batch: 8, Value: 30, Unit: "samples/s", Scenario: "cv-training"}}
	for _, tc := range []struct {
		name string
		doc  *Document
		want *Report
		err  string
	}{
		{"one H200", sampleDocument(), &Report{GPU: "NVIDIA H200", GEMMTFLOPS: map[string]float64{"bf16": 671.2}, MemoryBandwidthGBs: 4239, ScenarioThroughput: map[string]float64{}}, ""},
		{"two H200s", two, &Report{GPU: "NVIDIA H200", GEMMTFLOPS: map[string]float64{"bf16": (671.2 + 700) / 2}, MemoryBandwidthGBs: 4119.5,
			NCCLBusBWGBs: 360, ScenarioThroughput: map[string]float64{"cv-training": 2900}}, ""},
		{"cpu only", &Document{SchemaVersion: 1, Measurements: []Measurement{{Name: "gemm_fp32", Device: "cpu", Value: F(0.1), Unit: "TFLOP/s", Status: StatusOK}}}, nil, "measures no GPU (was it run with --device cpu?)"},
		{"two models", &Document{SchemaVersion: 1, GPUs: []GPUEntry{{Index: 0, Name: "NVIDIA H200"}, {Index: 1, Name: "NVIDIA A10G"}}}, nil, "several GPU models (NVIDIA A10G, NVIDIA H200)"},
	} {
		got, err := Derive(tc.doc)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: got %v, want %q", tc.name, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// Decode tells the formats apart by schema_version.
func TestDecodeBothFormats(t *testing.T) {
	var buf bytes.Buffer
	if err := sampleDocument().Encode(&buf); err != nil {
		t.Fatal(err)
	}
	r, err := Decode(&buf)
	if err != nil || r.GEMMTFLOPS["bf16"] != 671.2 || r.GPU != "NVIDIA H200" {
		t.Errorf("new format: got %+v, %v", r, err)
	}
	r, err = Decode(strings.NewReader(`{"gpu": "NVIDIA A10G", "gemm_tflops": {"bf16": 70}}`))
	if err != nil || r.GEMMTFLOPS["bf16"] != 70 {
		t.Errorf("flat format: got %+v, %v", r, err)
	}
	if _, err := Decode(strings.NewReader(`{"schema_version": 7, "gpus": []}`)); err == nil || !strings.Contains(err.Error(), "schema_version 7") {
		t.Errorf("future version: got %v", err)
	}
	if _, err := Decode(strings.NewReader(`{"schema_version": 1, "measurements": {}}`)); err == nil || !strings.Contains(err.Error(), "field measurements at byte 38: an object is not allowed here; want an array") {
		t.Errorf("bad measurements: got %v", err)
	}
}
