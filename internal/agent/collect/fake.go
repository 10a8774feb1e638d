package collect

import (
	"bytes"
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/nvml"
)

// h200Trace is nvidia-smi's 100 ms trace of one H200 (driver 580.159.04):
// 3 s idle, 20 s of bf16 matrix products, 5 s idle, recorded by this
// project (shared/data/gpu/h200-2026-11-30/nvidia-smi-load-100ms.csv).
//
//go:embed h200-load-100ms.csv
var h200Trace []byte

// The recorded H200's identity (nvidia-smi-query.csv of the same record).
const (
	fakeModel       = "FAKE NVIDIA H200"
	fakeDriver      = "580.159.04"
	fakeMemTotal    = 143771 << 20 // bytes
	fakePowerLimitW = 700.0
	tracePeriod     = 100 * time.Millisecond
)

// traceRow is one row of the trace.
type traceRow struct {
	util, memUtil float64
	memUsed       int64
	powerW, tempC float64
	smMHz, memMHz int
	reasons       uint64
}

func parseTrace(b []byte) ([]traceRow, error) {
	r := csv.NewReader(bytes.NewReader(b))
	r.TrimLeadingSpace = true
	if _, err := r.Read(); err != nil {
		return nil, fmt.Errorf("trace header: %w", err)
	}
	var rows []traceRow
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if len(rec) != 10 {
			return nil, fmt.Errorf("trace line %d: %d fields, want 10", line, len(rec))
		}
		var x traceRow
		var errs [8]error
		x.util, errs[0] = strconv.ParseFloat(rec[1], 64)
		x.memUtil, errs[1] = strconv.ParseFloat(rec[2], 64)
		x.memUsed, errs[2] = strconv.ParseInt(rec[3], 10, 64)
		x.powerW, errs[3] = strconv.ParseFloat(rec[4], 64)
		x.tempC, errs[4] = strconv.ParseFloat(rec[5], 64)
		x.smMHz, errs[5] = strconv.Atoi(rec[6])
		x.memMHz, errs[6] = strconv.Atoi(rec[7])
		x.reasons, errs[7] = strconv.ParseUint(strings.TrimPrefix(rec[8], "0x"), 16, 64)
		for _, e := range errs {
			if e != nil {
				return nil, fmt.Errorf("trace line %d: %w", line, e)
			}
		}
		x.util /= 100
		x.memUtil /= 100
		x.memUsed <<= 20
		rows = append(rows, x)
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("trace: no rows")
	}
	return rows, nil
}

// FakeGPUs simulates n GPUs by replaying the recorded H200 trace in a loop
// at its own pace (one row per 100 ms of wall time), each GPU a tenth of the
// trace behind the one before. They are labelled: gpuscout_gpu_info has
// fake="true" and a model starting with FAKE, and every uuid starts with
// GPU-FAKE-.
type FakeGPUs struct {
	n      int
	rows   []traceRow
	start  time.Time
	last   time.Time
	energy []float64 // joules, integrated from the trace's power
}

// NewFakeGPUs makes n simulated GPUs whose trace starts at start.
func NewFakeGPUs(n int, start time.Time) (*FakeGPUs, error) {
	rows, err := parseTrace(h200Trace)
	if err != nil {
		return nil, err
	}
	return &FakeGPUs{n: n, rows: rows, start: start, energy: make([]float64, n)}, nil
}

// Name is "gpu": the fake GPUs stand in for NVML.
func (f *FakeGPUs) Name() string { return NameGPU }

// GPUs returns n.
func (f *FakeGPUs) GPUs() int { return f.n }

// FakeUUID is the uuid of simulated GPU i.
func FakeUUID(i int) string { return fmt.Sprintf("GPU-FAKE-0000-0000-0000-%012d", i) }

// row returns GPU i's trace row at now.
func (f *FakeGPUs) row(i int, now time.Time) traceRow {
	step := int(now.Sub(f.start) / tracePeriod)
	if step < 0 {
		step = 0
	}
	return f.rows[(step+i*len(f.rows)/10)%len(f.rows)]
}

// Collect emits every fake GPU's values at now.
func (f *FakeGPUs) Collect(now time.Time, b *agent.Batch) error {
	dt := 0.0
	if !f.last.IsZero() && now.After(f.last) {
		dt = now.Sub(f.last).Seconds()
	}
	f.last = now
	for i := range f.n {
		x := f.row(i, now)
		index, uuid := strconv.Itoa(i), FakeUUID(i)
		f.energy[i] += x.powerW * dt
		b.Add(agent.GPUInfo, 1, index, uuid, fakeModel, fakeDriver, "true")
		s := gpu.Sample{At: now, UtilGPU: x.util, UtilMemory: x.memUtil, MemUsedBytes: x.memUsed, PowerW: x.powerW, TempC: x.tempC,
			SMClockMHz: x.smMHz, MemClockMHz: x.memMHz, ClockReasons: x.reasons, ReasonsActive: nvml.ReasonNames(x.reasons)}
		emitGPU(b, index, uuid, s, true, fakeMemTotal, fakePowerLimitW, f.energy[i], -1) // processes: not in the trace
		// The recorded H200's volatile ECC counts (gpuprobe.jsonl): none.
		b.Add(agent.GPUECCErrors, 0, index, uuid, "corrected")
		b.Add(agent.GPUECCErrors, 0, index, uuid, "uncorrected")
	}
	return nil
}
