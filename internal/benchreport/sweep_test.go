package benchreport

import (
	"encoding/json"
	"math"
	"slices"
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

// What NCCL chose at each size (the sweep's algorithm and protocol) and at
// the figure's size (settings NCCL_ALGO_CHOSEN, NCCL_PROTO_CHOSEN) survive
// encoding and go into a comparison; a name NCCL does not have, or one of
// the pair alone, is refused by name; reports from before have neither.
func TestNCCLChoiceFields(t *testing.T) {
	d := &Document{SchemaVersion: SchemaVersion, CreatedAt: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC),
		GPUs: []GPUEntry{{Index: 0, Name: "NVIDIA H200"}, {Index: 1, Name: "NVIDIA H200"}},
		Measurements: []Measurement{
			{Name: "nccl_allreduce_busbw", Device: DeviceNode, Value: F(367.2), Unit: "GB/s", Status: StatusOK,
				Settings: map[string]string{SettingNCCLAlgoChosen: "NVLS", SettingNCCLProtoChosen: "SIMPLE"},
				Sweep: []SweepPoint{{Bytes: 8, TimeUS: 20, AlgBWGBs: 0.0004, BusBWGBs: 0.0007, Algorithm: "RING", Protocol: "LL"},
					{Bytes: 1 << 20, TimeUS: 30, AlgBWGBs: 35, BusBWGBs: 61, Algorithm: ChoiceUnknown, Protocol: ChoiceUnknown},
					{Bytes: 1 << 30, TimeUS: 5100, AlgBWGBs: 210.5, BusBWGBs: 367.2, Algorithm: "NVLS", Protocol: "SIMPLE"}}},
			{Name: "nccl_allreduce_latency", Device: DeviceNode, Value: F(20), Unit: "µs", Status: StatusOK,
				Settings: map[string]string{SettingNCCLAlgoChosen: ChoiceUnknown, SettingNCCLProtoChosen: ChoiceUnknown, "NCCL_DEBUG_X": "y"}},
		}}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := d.Encode(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"algorithm": "RING",`, `"protocol": "SIMPLE"`, `"NCCL_ALGO_CHOSEN": "NVLS"`, `"algorithm": "unknown"`} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("encoded document has no %s", want)
		}
	}
	back, err := DecodeDocument(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if p := back.Measurements[0].Sweep[2]; p.Algorithm != "NVLS" || p.Protocol != "SIMPLE" {
		t.Errorf("read back %+v", p)
	}
	cmp := Compare([]string{"a"}, []*Document{back}, nil)
	if v := cmp.Rows[0].Values[0]; v.Settings[SettingNCCLAlgoChosen] != "NVLS" || v.Settings[SettingNCCLProtoChosen] != "SIMPLE" {
		t.Errorf("compared settings %v", v.Settings)
	}
	// A report written before gpuscout recorded the choice: no fields.
	old := `{"bytes": 8, "time_us": 20, "algbw_gbs": 0.0004, "busbw_gbs": 0.0007}`
	var p SweepPoint
	if err := json.Unmarshal([]byte(old), &p); err != nil || p.Algorithm != "" || p.Protocol != "" {
		t.Errorf("an older sweep point: %+v, %v", p, err)
	}
	back.Measurements[0].Sweep[0] = p
	if err := back.Validate(); err != nil {
		t.Errorf("an older sweep point is refused: %v", err)
	}
	for _, tc := range []struct {
		algo, proto string
		want        string
	}{
		{"Ring", "LL", `sweep[1]: algorithm "Ring"; want one of`},
		{"RING", "", "sweep[1]: want the algorithm and the protocol together"},
		{"", "LL", "sweep[1]: want the algorithm and the protocol together"},
		{"RING", "ll128", `sweep[1]: protocol "ll128"; want one of`},
		{"Unknown", "LL", `sweep[1]: algorithm "Unknown"`},
	} {
		c := back.Measurements[0]
		c.Sweep = slices.Clone(c.Sweep)
		c.Sweep[1].Algorithm, c.Sweep[1].Protocol = tc.algo, tc.proto
		bad := *back
		bad.Measurements = []Measurement{c}
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "measurements[0] (nccl_allreduce_busbw): "+tc.want) {
			t.Errorf("sweep point %q %q: %v, want %q", tc.algo, tc.proto, err, tc.want)
		}
	}
	for _, tc := range []struct {
		settings map[string]string
		want     string
	}{
		{map[string]string{SettingNCCLAlgoChosen: "NVLS"}, "want the algorithm and the protocol together"},
		{map[string]string{SettingNCCLProtoChosen: "LL"}, "want the algorithm and the protocol together"},
		{map[string]string{SettingNCCLAlgoChosen: "nvls", SettingNCCLProtoChosen: "LL"}, `algorithm "nvls"`},
		{map[string]string{SettingNCCLAlgoChosen: "", SettingNCCLProtoChosen: "LL"}, `algorithm ""`},
		{map[string]string{SettingNCCLAlgoChosen: "TREE", SettingNCCLProtoChosen: "SIMPLE,LL"}, `protocol "SIMPLE,LL"`},
	} {
		bad := *back
		bad.Measurements = []Measurement{back.Measurements[1]}
		bad.Measurements[0].Settings = tc.settings
		if err := bad.Validate(); err == nil || !strings.Contains(err.Error(), "measurements[0] (nccl_allreduce_latency): settings NCCL_ALGO_CHOSEN and NCCL_PROTO_CHOSEN: "+tc.want) {
			t.Errorf("settings %v: %v, want %q", tc.settings, err, tc.want)
		}
	}
}
