package nvml

import (
	"errors"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// FillInfo completes info with what NVML knows about the device: name,
// UUID, memory, driver and CUDA driver versions (where empty), clocks, power
// limit, PCIe link, ECC, MIG, virtualisation mode, NUMA node, bus id,
// architecture, compute capability (where empty) and the NVML library file.
// Fields NVML does not support stay unknown; the errors returned are the
// other failures, one per field, for a report's notes.
func (d *Device) FillInfo(info *gpu.Info) []error {
	var errs []error
	keep := func(err error) bool {
		if err == nil {
			return true
		}
		if !errors.Is(err, ErrNotSupported) {
			errs = append(errs, err)
		}
		return false
	}
	if info.Name == "" {
		if v, err := d.Name(); keep(err) {
			info.Name = v
		}
	}
	if v, err := d.UUID(); keep(err) {
		info.UUID = v
	}
	if m, err := d.Memory(); keep(err) && info.MemoryBytes == 0 {
		info.MemoryBytes = m.Total
	}
	if info.Driver == "" {
		if v, err := d.n.DriverVersion(); keep(err) {
			info.Driver = v
		}
	}
	if info.Runtime == "" {
		if v, err := d.n.CUDADriverVersion(); keep(err) {
			info.Runtime = v
		}
	}
	if v, err := d.ClockMHz(ClockSM, false); keep(err) {
		info.ClockMHz = v
	}
	if v, err := d.ClockMHz(ClockSM, true); keep(err) {
		info.MaxClockMHz = v
	}
	if v, err := d.ClockMHz(ClockMem, true); keep(err) {
		info.MemClockMHz = v
	}
	if v, err := d.PowerLimitW(); keep(err) {
		info.PowerLimitW = v
	}
	if l, err := d.PCIeLink(false); keep(err) {
		info.PCIeGen, info.PCIeWidth = l.Gen, l.Width
	}
	if v, err := d.ECC(); keep(err) {
		info.ECC = v
	}
	if v, err := d.MIG(); keep(err) {
		info.MIG = v
	}
	if v, err := d.Virtualization(); keep(err) {
		info.Virtualized = v
	}
	info.NUMANode = -1
	if v, err := d.NUMANode(); keep(err) {
		info.NUMANode = v
	}
	if p, err := d.PCI(); keep(err) {
		info.BusID = p.BusID
	}
	if v, err := d.Architecture(); keep(err) {
		info.Architecture = v
	}
	if info.ComputeCap == "" {
		if v, err := d.ComputeCapability(); keep(err) {
			info.ComputeCap = v
		}
	}
	if info.Libraries == nil {
		info.Libraries = map[string]string{}
	}
	info.Libraries["nvml"] = d.n.lib.Path
	return errs
}
