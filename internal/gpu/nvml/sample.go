package nvml

import (
	"errors"
	"math"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// The clock-event reason bits (nvmlClocksEventReason*, formerly
// nvmlClocksThrottleReason*) and their names in gpu.Sample.ReasonsActive.
var reasonBits = []struct {
	bit  uint64
	name string
}{
	{0x1, "gpu_idle"},
	{0x2, "applications_clocks_setting"},
	{0x4, "sw_power_cap"},
	{0x8, "hw_slowdown"},
	{0x10, "sync_boost"},
	{0x20, "sw_thermal_slowdown"},
	{0x40, "hw_thermal_slowdown"},
	{0x80, "hw_power_brake_slowdown"},
	{0x100, "display_clock_setting"},
}

// ReasonNames names the bits of a clock-event reason mask, lowest bit
// first; an unknown bit is named "bit_0x…".
func ReasonNames(mask uint64) []string {
	var out []string
	known := uint64(0)
	for _, r := range reasonBits {
		known |= r.bit
		if mask&r.bit != 0 {
			out = append(out, r.name)
		}
	}
	for b := uint64(1); b != 0; b <<= 1 {
		if mask&b != 0 && known&b == 0 {
			out = append(out, "bit_"+hex(b))
		}
	}
	return out
}

func hex(v uint64) string {
	const digits = "0123456789abcdef"
	s := ""
	for v > 0 {
		s = string(digits[v&0xf]) + s
		v >>= 4
	}
	return "0x" + s
}

// Sample reads the device's telemetry now (gpu.Sampler). Fields NVML cannot
// read are NaN (or -1 for integers); the error is non-nil only when no field
// could be read.
func (d *Device) Sample() (gpu.Sample, error) {
	s := gpu.Sample{At: time.Now(), UtilGPU: math.NaN(), UtilMemory: math.NaN(), MemUsedBytes: -1,
		PowerW: math.NaN(), TempC: math.NaN(), SMClockMHz: -1, MemClockMHz: -1}
	var firstErr error
	ok := 0
	note := func(err error) bool {
		if err == nil {
			ok++
			return true
		}
		if firstErr == nil && !errors.Is(err, ErrNotSupported) {
			firstErr = err
		}
		return false
	}
	if u, err := d.Utilization(); note(err) {
		s.UtilGPU, s.UtilMemory = u.GPU, u.Memory
	}
	if m, err := d.Memory(); note(err) {
		s.MemUsedBytes = m.Used
	}
	if p, err := d.PowerW(); note(err) {
		s.PowerW = p
	}
	if t, err := d.TemperatureC(); note(err) {
		s.TempC = t
	}
	if c, err := d.ClockMHz(ClockSM, false); note(err) {
		s.SMClockMHz = c
	}
	if c, err := d.ClockMHz(ClockMem, false); note(err) {
		s.MemClockMHz = c
	}
	if r, err := d.ClockEventReasons(); note(err) {
		s.ClockReasons, s.ReasonsActive = r, ReasonNames(r)
	}
	if ok == 0 {
		if firstErr == nil {
			firstErr = &Error{Func: "sample", Code: ErrorNotSupported}
		}
		return s, firstErr
	}
	return s, nil
}

var _ gpu.Sampler = (*Device)(nil)
