package benchreport

import (
	"math"
	"strings"
	"testing"
	"time"
)

// A peer pair's link and an all-reduce's sweep survive encoding, and a
// sweep point out of range is refused by name.
func TestMultiGPUFields(t *testing.T) {
	d := &Document{SchemaVersion: SchemaVersion, CreatedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		GPUs: []GPUEntry{{Index: 0, Name: "NVIDIA H200"}, {Index: 1, Name: "NVIDIA H200"}},
		Measurements: []Measurement{
			{Name: "p2p", Device: "gpu0>gpu1", Value: F(396.4), Unit: "GB/s", Status: StatusOK, Link: "NVLink"},
			{Name: "nccl_allreduce_busbw", Device: DeviceNode, Value: F(367.2), Unit: "GB/s", Status: StatusOK,
				Sweep: []SweepPoint{{Bytes: 8, TimeUS: 20, AlgBWGBs: 0.0004, BusBWGBs: 0.0007}, {Bytes: 1 << 30, TimeUS: 5100, AlgBWGBs: 210.5, BusBWGBs: 367.2}}},
		}}
	var b strings.Builder
	if err := d.Encode(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"link": "NVLink"`, `"bytes": 1073741824`, `"busbw_gbs": 367.2`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("encoded document has no %s", want)
		}
	}
	back, err := DecodeDocument(strings.NewReader(b.String()))
	if err != nil || back.Find("p2p", "gpu0>gpu1").Link != "NVLink" || len(back.Find("nccl_allreduce_busbw", "node").Sweep) != 2 {
		t.Fatalf("read back: %v", err)
	}
	r, err := Derive(back)
	if err != nil || r.NCCLBusBWGBs != 367.2 {
		t.Errorf("Derive: %+v, %v; want nccl_busbw_gbs 367.2", r, err)
	}
	for _, tc := range []struct {
		p    SweepPoint
		want string
	}{
		{SweepPoint{Bytes: 0, TimeUS: 1}, "sweep[1].bytes = 0; want 1 or more"},
		{SweepPoint{Bytes: 8, TimeUS: math.NaN()}, "sweep[1].time_us = NaN"},
		{SweepPoint{Bytes: 8, BusBWGBs: -1}, "sweep[1].busbw_gbs = -1"},
	} {
		back.Measurements[1].Sweep[1] = tc.p
		if err := back.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.p, err, tc.want)
		}
	}
}
