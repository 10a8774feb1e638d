package agent

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// benchSnapshot is about what 8 GPUs, a few interfaces and the cost meter
// give: 8 × 22 GPU series and 20 others.
func benchSnapshot() *Snapshot {
	var b Batch
	for g := range 8 {
		idx, uuid := fmt.Sprint(g), fmt.Sprintf("GPU-FAKE-0000-0000-0000-%012d", g)
		b.Add(GPUInfo, 1, idx, uuid, "FAKE NVIDIA H200", "580.159.04", "true")
		for _, m := range []string{GPUUtilization, GPUMemoryUtilization, GPUMemoryUsed, GPUMemoryTotal, GPUMemoryUsedRatio, GPUPower,
			GPUPowerLimit, GPUEnergy, GPUTemperature, GPUSMClock, GPUMemoryClock} {
			b.Add(m, 0.5, idx, uuid)
		}
		for _, r := range []string{"gpu_idle", "sw_power_cap", "hw_slowdown", "sync_boost", "sw_thermal_slowdown", "hw_thermal_slowdown", "hw_power_brake_slowdown", "display_clock_setting", "applications_clocks_setting"} {
			b.Add(GPUClockEvent, 0, idx, uuid, r)
		}
	}
	for _, i := range []string{"lo", "eth0", "eth1"} {
		b.Add(NetworkReceive, 1e9, i)
		b.Add(NetworkTransmit, 1e9, i)
	}
	return &Snapshot{At: time.Now(), Series: b.Series()}
}

// BenchmarkScrape is one /metrics request on the stored snapshot.
func BenchmarkScrape(b *testing.B) {
	var store Store
	store.Save(benchSnapshot())
	h := Handler(&store, false, time.Second, "bench")
	req := httptest.NewRequest(http.MethodGet, "/metrics", nil)
	b.ReportAllocs()
	for b.Loop() {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		if w.Code != 200 {
			b.Fatal(w.Code)
		}
	}
}
