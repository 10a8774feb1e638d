package bench

import (
	"fmt"

	"github.com/gpuscout/gpuscout/internal/benchreport"
)

// AlgBW is a collective's algorithm bandwidth in GB/s: the message size
// over the time of one operation (nccl-tests' algbw).
func AlgBW(bytes int64, seconds float64) float64 { return float64(bytes) / seconds / 1e9 }

// BusBW is an all-reduce's bus bandwidth over n ranks, algbw × 2(n−1)/n
// (nccl-tests' busbw): what each link carries, comparable with its speed
// whatever the number of GPUs. One rank moves nothing over a bus: 0.
func BusBW(algbw float64, n int) float64 {
	if n < 2 {
		return 0
	}
	return algbw * 2 * float64(n-1) / float64(n)
}

// commName is the measurement name of a multi-GPU group.
func commName(group string) string {
	if group == GroupNCCL {
		return "nccl_allreduce_busbw"
	}
	return "p2p"
}

// commEntry is the report entry of a multi-GPU group that was not run:
// unsupported with fewer than two GPUs, not measured (with why) otherwise.
func commEntry(group string, gpus int, why string) benchreport.Measurement {
	m := benchreport.Measurement{Name: commName(group), Device: benchreport.DeviceNode, Unit: UnitGBs}
	switch {
	case gpus < 2:
		m.Status, m.Detail = benchreport.StatusUnsupported, fmt.Sprintf("%d GPU: %s needs two or more", gpus, commWhat(group))
	default:
		m.Status, m.Detail = benchreport.StatusNotMeasured, fmt.Sprintf("not measured: %s over %d GPUs %s", commWhat(group), gpus, why)
	}
	return m
}

func commWhat(group string) string {
	if group == GroupNCCL {
		return "an NCCL all-reduce"
	}
	return "a peer-to-peer copy"
}
