package collect

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/gpu/nvml"
)

const h200UUID = "GPU-8a89bb26-423b-7217-aa80-469f70fa0196"

// Through the fake NVML (the recorded H200's values), then NVML failing
// mid-run (GPU_IS_LOST on every device call): the gpu collector goes down,
// the GPU's telemetry disappears rather than reading zero, the network and
// cost collectors go on; when NVML answers again the collector is back up.
func TestGPUThroughNVMLAndLost(t *testing.T) {
	n, set := openFake(t)
	set("gpus", 2)
	set("procs", 3)
	g, err := NewGPU(n)
	if err != nil {
		t.Fatal(err)
	}
	g.PCIe = true
	if g.GPUs() != 2 {
		t.Fatalf("%d GPUs, want 2", g.GPUs())
	}
	root := procRoot(t, map[string]string{"net/dev": fixture(t), "uptime": "100 50\n"})
	var store agent.Store
	l := agent.NewLoop(time.Second, &store, g, &Network{Root: root}, &Cost{Root: root})
	value := func(s *agent.Snapshot, metric string, labels ...string) (float64, bool) {
		for _, x := range s.Get(metric) {
			if strings.Join(x.Values, ",") == strings.Join(labels, ",") {
				return x.Value, true
			}
		}
		return 0, false
	}
	snap := l.Sample()
	g0 := []string{"0", h200UUID}
	for _, tc := range []struct {
		metric string
		labels []string
		want   float64
	}{
		{agent.CollectorUp, []string{"gpu"}, 1},
		{agent.GPUMemoryUsed, g0, 644939776},
		{agent.GPUMemoryTotal, g0, 150754820096},
		{agent.GPUMemoryUsedRatio, g0, 644939776.0 / 150754820096},
		{agent.GPUPower, g0, 80.056},
		{agent.GPUPowerLimit, g0, 700},
		{agent.GPUEnergy, g0, 2718.713},
		{agent.GPUTemperature, g0, 38},
		{agent.GPUSMClock, g0, 345e6},
		{agent.GPUMemoryClock, g0, 3201e6},
		{agent.GPUUtilization, g0, 0},
		{agent.GPUClockEvent, append(g0, "gpu_idle"), 1},
		{agent.GPUProcesses, g0, 3},
		{agent.GPUXidErrors, g0, 0},
		{agent.GPUECCErrors, append(g0, "uncorrected"), 0},
		{agent.GPUPCIeTransmit, g0, 2358 * 1024},
		{agent.GPUPCIeReceive, g0, 603 * 1024},
		{agent.GPUInfo, []string{"0", h200UUID, "NVIDIA H200", "580.159.04", "false"}, 1},
	} {
		if got, ok := value(snap, tc.metric, tc.labels...); !ok || math.Abs(got-tc.want) > 1e-9*math.Max(1, tc.want) {
			t.Errorf("%s%v = %v (present %v), want %v", tc.metric, tc.labels, got, ok, tc.want)
		}
	}
	set("xid", 79)
	snap = l.Sample()
	if v, ok := value(snap, agent.GPUXidErrors, g0...); !ok || v != 1 {
		t.Errorf("Xid errors %v (present %v) after one Xid 79, want 1", v, ok)
	}
	if v, ok := value(snap, agent.GPUXidErrors, "1", "GPU-00000000-0000-0000-0000-000000000001"); !ok || v != 0 {
		t.Errorf("GPU 1 Xid errors %v (present %v), want 0", v, ok)
	}
	set("lost", 1)
	snap = l.Sample()
	if v, _ := value(snap, agent.CollectorUp, "gpu"); v != 0 {
		t.Errorf("gpu collector up %v with NVML lost, want 0", v)
	}
	if _, ok := value(snap, agent.GPUUtilization, g0...); ok {
		t.Error("a lost GPU still reports utilisation")
	}
	if _, ok := value(snap, agent.GPUInfo, "0", h200UUID, "NVIDIA H200", "580.159.04", "false"); !ok {
		t.Error("the lost GPU's identity is gone; it stays so that alerts can name it")
	}
	for _, c := range []string{"network", "cost"} {
		if v, _ := value(snap, agent.CollectorUp, c); v != 1 {
			t.Errorf("%s collector up %v while NVML is lost, want 1", c, v)
		}
	}
	set("lost", 0)
	snap = l.Sample()
	if v, _ := value(snap, agent.CollectorUp, "gpu"); v != 1 {
		t.Errorf("gpu collector up %v after NVML recovered, want 1", v)
	}
}

// With NVML required but not loadable at first, the collector is down with
// the reason, does not retry before Every, and samples once NVML opens.
func TestNVMLRetry(t *testing.T) {
	n, _ := openFake(t)
	opens := 0
	r := &NVMLRetry{Every: 30 * time.Second, Open: func() (*nvml.NVML, error) {
		opens++
		if opens == 1 {
			return nil, errors.New("libnvidia-ml.so.1 not found")
		}
		return n, nil
	}}
	var b agent.Batch
	if err := r.Collect(t0, &b); err == nil || !strings.Contains(err.Error(), "libnvidia-ml.so.1 not found") {
		t.Errorf("first sample: %v, want the load error", err)
	}
	if err := r.Collect(t0.Add(10*time.Second), &b); err == nil || opens != 1 {
		t.Errorf("10 s later: err %v after %d opens; want no retry before 30 s", err, opens)
	}
	if err := r.Collect(t0.Add(31*time.Second), &b); err != nil || opens != 2 {
		t.Fatalf("31 s later: err %v after %d opens; want open and sampled", err, opens)
	}
	if v, ok := get(&b, agent.GPUTemperature, "0", h200UUID); !ok || v != 38 {
		t.Errorf("temperature %v (present %v), want 38", v, ok)
	}
}
