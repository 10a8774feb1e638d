package benchreport

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

func TestDecode(t *testing.T) {
	for _, tc := range []struct {
		in, err string
	}{
		{`{"gpu": "NVIDIA A10G", "gemm_tflops": {"bf16": 70}, "memory_bandwidth_gbs": 500}`, ""},
		// An unknown field was ignored (a misspelt one with it); a key given
		// twice was taken last-wins; data after the report was ignored.
		{`{"gpu": "NVIDIA A10G", "gemm_tflops": {"bf16": 70}, "memory_bandwidth_gbs": 500, "extra": 1}`, "field extra at byte 81: unknown field; allowed: gemm_tflops, gpu, memory_bandwidth_gbs, nccl_busbw_gbs, scenario_throughput"},
		{`{"gpu": "A10G", "gemm_tflops": {"bf16": 70, "bf16": 7000}}`, "field gemm_tflops.bf16 at byte 44: given twice"},
		{`{"gpu": "A10G", "gpu": "H100"}`, "field gpu at byte 16: given twice"},
		{`{"gpu": "A10G"} {"gpu": "H100"}`, "at byte 16: data after the JSON value"},
		{`{"gpu": "A10G", "memory_bandwidth_gbs": 1e3000000}`, "field memory_bandwidth_gbs at byte 40: number 1e3000000 is outside the allowed range"},
		{`{"gemm_tflops": {"bf16": 70}}`, "field gpu is missing"},
		{`{"gpu": "A10G", "gemm_tflops": {"bf16": -1}}`, "gemm_tflops.bf16 = -1"},
		{`{"gpu": "A10G", "gemm_tflops": {"bf16": 1e9}}`, "gemm_tflops.bf16 = 1e+09; want a number in (0, 100000]"},
		{`{"gpu": "A10G", "memory_bandwidth_gbs": -3}`, "memory_bandwidth_gbs = -3"},
		{`{"gpu": "A10G", "scenario_throughput": {"cv-training": 0}}`, "scenario_throughput.cv-training = 0"},
		{`{"gpu": "NVIDIA H100 80GB HBM3", "nccl_busbw_gbs": 360}`, ""},
		{`{"gpu": "A10G", "nccl_busbw_gbs": -1}`, "nccl_busbw_gbs = -1; want a number in (0, 1e+06]"},
		{`{"gpu": "A10G", "nccl_busbw_gbs": "fast"}`, "field nccl_busbw_gbs at byte 34: a string is not allowed here; want a number"},
		{`[1, 2]`, "not a benchmark report"},
		{`{"gpu": 5}`, "field gpu at byte 8: a number is not allowed here; want a string"},
	} {
		_, err := Decode(strings.NewReader(tc.in))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: got %v, want no error", tc.in, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: got %v, want %q", tc.in, err, tc.err)
		case err != nil && strings.Contains(err.Error(), "benchreport."):
			t.Errorf("%s: error leaks a Go type: %v", tc.in, err)
		}
	}
}

// A report written with Encode reads back equal, and Load resolves its GPU.
func TestRoundTripAndLoad(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	want := &Report{GPU: "NVIDIA A10G", GEMMTFLOPS: map[string]float64{"bf16": 70}, MemoryBandwidthGBs: 500}
	var buf bytes.Buffer
	if err := want.Encode(&buf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.json")
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	got, g, err := Load(path, c)
	if err != nil {
		t.Fatal(err)
	}
	if g.Name != "A10G" || got.GEMMTFLOPS["bf16"] != 70 || got.MemoryBandwidthGBs != 500 || got.Path != path {
		t.Errorf("got %+v on %s, want %+v on A10G", got, g.Name, want)
	}
	if _, _, err := Load(filepath.Join(t.TempDir(), "none.json"), c); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing file: got %v, want fs.ErrNotExist", err)
	}
}
