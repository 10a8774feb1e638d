package benchreport

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// gemmDTypes are the element types whose GEMM figures advise reads.
var gemmDTypes = []string{"fp32", "tf32", "bf16", "fp16", "fp8"}

// Derive takes from a bench Document the flat figures advise reads. Only GPU
// measurements count (device "gpuN", or "node" for NCCL), never the host
// CPU's. Per GPU a GEMM figure is the sustained one (gemm_bf16_sustained)
// when measured, else the plain one (gemm_bf16); over several GPUs each figure
// is their median. memory_bandwidth_gbs is hbm_copy, nccl_busbw_gbs
// nccl_allreduce_busbw, and a workload that names an advise scenario gives
// that scenario's throughput. A report must measure one GPU model.
func Derive(d *Document) (*Report, error) {
	if len(d.GPUs) == 0 {
		return nil, errors.New("the report measures no GPU (was it run with --device cpu?); advise --bench needs a report measured on a GPU")
	}
	names := map[string]bool{}
	for _, g := range d.GPUs {
		names[g.Name] = true
	}
	if len(names) > 1 {
		list := make([]string, 0, len(names))
		for n := range names {
			list = append(list, n)
		}
		sort.Strings(list)
		return nil, fmt.Errorf("the report measures several GPU models (%s); advise reads one model per report", strings.Join(list, ", "))
	}
	r := &Report{GPU: d.GPUs[0].Name, GEMMTFLOPS: map[string]float64{}, ScenarioThroughput: map[string]float64{}}
	for _, dt := range gemmDTypes {
		var vals []float64
		for _, g := range d.GPUs {
			dev := DeviceName(g.Index)
			m := d.Find("gemm_"+dt+"_sustained", dev)
			if m == nil || !m.OK() {
				m = d.Find("gemm_"+dt, dev)
			}
			if m != nil && m.OK() && *m.Value > 0 {
				vals = append(vals, *m.Value)
			}
		}
		if len(vals) > 0 {
			r.GEMMTFLOPS[dt] = median(vals)
		}
	}
	r.MemoryBandwidthGBs = median(gpuValues(d, "hbm_copy"))
	r.NCCLBusBWGBs = median(gpuValues(d, "nccl_allreduce_busbw"))
	per := map[string][]float64{}
	for _, w := range d.Workloads {
		if w.Scenario != "" && isGPUDevice(w.Device) && w.Value > 0 {
			per[w.Scenario] = append(per[w.Scenario], w.Value)
		}
	}
	for sc, vals := range per {
		r.ScenarioThroughput[sc] = median(vals)
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return r, nil
}

// DeviceName is a GPU's device name in measurements: "gpu0".
func DeviceName(index int) string { return fmt.Sprintf("gpu%d", index) }

// DeviceCPU and DeviceNode are the device names of the host CPU and of
// measurements over all GPUs of the node together.
const (
	DeviceCPU  = "cpu"
	DeviceNode = "node"
)

func isGPUDevice(dev string) bool {
	return dev == DeviceNode || (strings.HasPrefix(dev, "gpu") && len(dev) > 3)
}

// gpuValues lists the measured values of name on GPU devices.
func gpuValues(d *Document, name string) []float64 {
	var out []float64
	for _, m := range d.Measurements {
		if m.Name == name && isGPUDevice(m.Device) && m.OK() && *m.Value > 0 {
			out = append(out, *m.Value)
		}
	}
	return out
}

// median of the values; 0 for none.
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
