package workload

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// Result is what the script printed, plus the telemetry gpuscout sampled
// while it ran.
type Result struct {
	Model           string     `json:"model"`
	OK              bool       `json:"ok"`
	Error           string     `json:"error,omitempty"`
	Torch           string     `json:"torch,omitempty"`
	TorchCUDA       *string    `json:"torch_cuda"` // CUDA version torch was built for; null: a CPU build
	Python          string     `json:"python,omitempty"`
	Device          string     `json:"device,omitempty"`
	DeviceName      string     `json:"device_name,omitempty"`
	AMP             bool       `json:"amp"`
	Unit            string     `json:"unit,omitempty"` // images or sequences
	Tiny            bool       `json:"tiny"`
	Batch           int        `json:"batch,omitempty"`
	Steps           int        `json:"steps,omitempty"`
	StepMS          []float64  `json:"step_ms,omitempty"`
	StepMSMedian    float64    `json:"step_ms_median,omitempty"`
	SamplesPerS     float64    `json:"samples_per_s,omitempty"`
	PeakMemoryBytes int64      `json:"peak_memory_bytes,omitempty"`
	MaxBatch        int        `json:"max_batch,omitempty"`
	MaxBatchCapped  bool       `json:"max_batch_capped,omitempty"` // no batch up to the cap ran out of memory
	Tried           []Try      `json:"tried,omitempty"`
	Telemetry       *Telemetry `json:"telemetry,omitempty"`
}

// Try is one batch size --find-max-batch tried.
type Try struct {
	Batch int  `json:"batch"`
	Fits  bool `json:"fits"`
}

// Telemetry summarises the device samples taken while the workload ran.
type Telemetry struct {
	Samples         int     `json:"samples"`
	UtilMean        float64 `json:"util_mean"`   // 0..1
	UtilStdDev      float64 `json:"util_stddev"` // 0..1
	MemUsedMaxBytes int64   `json:"mem_used_max_bytes"`
	PowerMeanW      float64 `json:"power_mean_w"`
}

// maxOutput bounds what is read of the script's stdout.
const maxOutput = 4 << 20

// Parse reads the script's stdout: the last line that is a JSON object.
// Anything a library printed before it is ignored.
func Parse(r io.Reader) (*Result, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxOutput+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxOutput {
		return nil, fmt.Errorf("workload output is over %d bytes", maxOutput)
	}
	var last []byte
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), maxOutput)
	for sc.Scan() {
		if l := bytes.TrimSpace(sc.Bytes()); len(l) > 0 && l[0] == '{' {
			last = append(last[:0], l...)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if last == nil {
		return nil, errors.New("the workload printed no result (no JSON line on stdout)")
	}
	var res Result
	if err := json.Unmarshal(last, &res); err != nil {
		return nil, fmt.Errorf("the workload's result is not valid: %v", err)
	}
	return &res, res.check()
}

// check bounds the numbers of a successful result.
func (r *Result) check() error {
	if !r.OK {
		if r.Error == "" {
			return errors.New("the workload failed without saying why")
		}
		return nil
	}
	if r.Batch < 1 || r.Batch > MaxBatch {
		return fmt.Errorf("the workload's result has batch %d; want 1..%d", r.Batch, MaxBatch)
	}
	if !(r.SamplesPerS > 0) || math.IsInf(r.SamplesPerS, 0) || !(r.StepMSMedian > 0) || math.IsInf(r.StepMSMedian, 0) {
		return fmt.Errorf("the workload's result has samples_per_s %v and step_ms_median %v; want positive numbers", r.SamplesPerS, r.StepMSMedian)
	}
	if len(r.StepMS) != r.Steps {
		return fmt.Errorf("the workload's result has %d step times for %d steps", len(r.StepMS), r.Steps)
	}
	return nil
}
