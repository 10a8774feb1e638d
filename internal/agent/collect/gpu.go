package collect

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/nvml"
)

// GPU samples every NVIDIA GPU through NVML. The identity (uuid, model,
// memory total, power limit) is read once at start; the telemetry every
// sample. A GPU whose reading fails makes the collector down for that
// sample while the other GPUs' values are still served.
type GPU struct {
	// PCIe also reads the PCIe throughput (about 40 ms a GPU).
	PCIe bool
	// Log gets each Xid error (nil: not logged).
	Log    *slog.Logger
	n      *nvml.NVML
	driver string
	devs   []gpuDev
	xid    *nvml.XidEvents // nil where NVML cannot report Xid errors
	nvdevs []*nvml.Device
	xids   map[*nvml.Device]float64
}

type gpuDev struct {
	d          *nvml.Device
	index      string
	uuid, name string
	memTotal   int64
	powerLimit float64
}

// NewGPU enumerates the GPUs of an opened NVML.
func NewGPU(n *nvml.NVML) (*GPU, error) {
	g := &GPU{n: n}
	g.driver, _ = n.DriverVersion()
	devs, err := n.Devices()
	if err != nil {
		return nil, err
	}
	for _, d := range devs {
		x := gpuDev{d: d, index: strconv.Itoa(d.Index()), memTotal: -1, powerLimit: -1}
		if x.uuid, err = d.UUID(); err != nil {
			return nil, fmt.Errorf("GPU %d: %w", d.Index(), err)
		}
		x.name, _ = d.Name()
		if m, err := d.Memory(); err == nil {
			x.memTotal = m.Total
		}
		if p, err := d.PowerLimitW(); err == nil {
			x.powerLimit = p
		}
		g.devs = append(g.devs, x)
		g.nvdevs = append(g.nvdevs, d)
	}
	if x, err := n.WatchXid(g.nvdevs); err == nil {
		g.xid, g.xids = x, map[*nvml.Device]float64{}
	}
	return g, nil
}

// Name is "gpu".
func (g *GPU) Name() string { return NameGPU }

// Close stops watching for Xid errors; the caller closes the NVML.
func (g *GPU) Close() error {
	if g.xid == nil {
		return nil
	}
	err := g.xid.Close()
	g.xid = nil
	return err
}

// GPUs returns how many GPUs the collector samples.
func (g *GPU) GPUs() int { return len(g.devs) }

// Collect reads every GPU.
func (g *GPU) Collect(now time.Time, b *agent.Batch) error {
	var errs []error
	if g.xid != nil {
		xs, err := g.xid.Poll(g.nvdevs)
		for _, x := range xs {
			g.xids[x.Device]++
			if g.Log != nil {
				g.Log.Warn("GPU Xid error", "gpu", x.Device.Index(), "xid", x.Code)
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("Xid events: %w", err))
		}
	}
	for _, x := range g.devs {
		b.Add(agent.GPUInfo, 1, x.index, x.uuid, x.name, g.driver, "false")
		s, err := x.d.Sample()
		if err != nil {
			errs = append(errs, fmt.Errorf("GPU %s (%s): %w", x.index, x.uuid, err))
			continue
		}
		energy := -1.0
		if e, err := x.d.EnergyJ(); err == nil {
			energy = e
		}
		procs := -1
		if p, err := x.d.ComputeProcesses(); err == nil {
			procs = len(p)
		}
		_, rerr := x.d.ClockEventReasons() // Sample's 0 mask may be a failed read
		emitGPU(b, x.index, x.uuid, s, rerr == nil, x.memTotal, x.powerLimit, energy, procs)
		if g.xid != nil {
			b.Add(agent.GPUXidErrors, g.xids[x.d], x.index, x.uuid)
		}
		if e, err := x.d.ECCErrors(); err == nil {
			b.Add(agent.GPUECCErrors, float64(e.Corrected), x.index, x.uuid, "corrected")
			b.Add(agent.GPUECCErrors, float64(e.Uncorrected), x.index, x.uuid, "uncorrected")
		}
		if g.PCIe {
			if p, err := x.d.PCIeThroughput(); err == nil {
				b.Add(agent.GPUPCIeTransmit, p.TX, x.index, x.uuid)
				b.Add(agent.GPUPCIeReceive, p.RX, x.index, x.uuid)
			}
		}
	}
	return errors.Join(errs...)
}

// emitGPU adds one GPU's sample; negative and NaN fields are unknown and
// left out.
func emitGPU(b *agent.Batch, index, uuid string, s gpu.Sample, reasonsKnown bool, memTotal int64, powerLimit, energyJ float64, procs int) {
	b.Add(agent.GPUUtilization, s.UtilGPU, index, uuid)
	b.Add(agent.GPUMemoryUtilization, s.UtilMemory, index, uuid)
	if s.MemUsedBytes >= 0 {
		b.Add(agent.GPUMemoryUsed, float64(s.MemUsedBytes), index, uuid)
	}
	if memTotal > 0 {
		b.Add(agent.GPUMemoryTotal, float64(memTotal), index, uuid)
		if s.MemUsedBytes >= 0 {
			b.Add(agent.GPUMemoryUsedRatio, float64(s.MemUsedBytes)/float64(memTotal), index, uuid)
		}
	}
	b.Add(agent.GPUPower, s.PowerW, index, uuid)
	if powerLimit >= 0 {
		b.Add(agent.GPUPowerLimit, powerLimit, index, uuid)
	}
	if energyJ >= 0 {
		b.Add(agent.GPUEnergy, energyJ, index, uuid)
	}
	b.Add(agent.GPUTemperature, s.TempC, index, uuid)
	if s.SMClockMHz >= 0 {
		b.Add(agent.GPUSMClock, float64(s.SMClockMHz)*1e6, index, uuid)
	}
	if s.MemClockMHz >= 0 {
		b.Add(agent.GPUMemoryClock, float64(s.MemClockMHz)*1e6, index, uuid)
	}
	if reasonsKnown {
		for _, r := range reasonNames {
			v := 0.0
			for _, a := range s.ReasonsActive {
				if a == r {
					v = 1
				}
			}
			b.Add(agent.GPUClockEvent, v, index, uuid, r)
		}
	}
	if procs >= 0 {
		b.Add(agent.GPUProcesses, float64(procs), index, uuid)
	}
}

// reasonNames are the clock-event reasons exported, one series each.
var reasonNames = nvml.ReasonNames(0x1ff)
