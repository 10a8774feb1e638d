package autostop

import (
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent"
)

// sample builds an agent snapshot: the gpu collector's up value (NaN for no
// collector), and per GPU index its utilisation and process count (NaN: no
// series).
func sample(t *testing.T, up float64, gpus map[string][2]float64) *agent.Snapshot {
	t.Helper()
	var b agent.Batch
	if !math.IsNaN(up) {
		b.Add(agent.CollectorUp, up, GPUCollector)
	}
	b.Add(agent.CollectorUp, 1, "netdev")
	for g, v := range gpus {
		uuid := "GPU-" + g
		b.Add(agent.GPUInfo, 1, g, uuid, "NVIDIA H200", "570.86.15", "false")
		if !math.IsNaN(v[0]) {
			b.Add(agent.GPUUtilization, v[0], g, uuid)
		}
		if !math.IsNaN(v[1]) {
			b.Add(agent.GPUProcesses, v[1], g, uuid)
		}
	}
	if b.Err() != nil {
		t.Fatal(b.Err())
	}
	return &agent.Snapshot{At: t0, Series: b.Series()}
}

func TestFromAgent(t *testing.T) {
	nan := math.NaN()
	tests := []struct {
		name      string
		snap      *agent.Snapshot
		wantUtil  []float64
		wantProcs []float64
		wantErr   bool
	}{
		{"three gpus, ordered by index", sample(t, 1, map[string][2]float64{"10": {0.9, 2}, "0": {0.01, 0}, "2": {0, 1}}),
			[]float64{0.01, 0, 0.9}, []float64{0, 1, 2}, false},
		{"a gpu without readings", sample(t, 1, map[string][2]float64{"0": {0.01, 0}, "1": {nan, nan}}),
			[]float64{0.01, nan}, []float64{0, nan}, false},
		{"collector up, no gpus", sample(t, 1, nil), []float64{}, []float64{}, false},
		{"gpu collector down", sample(t, 0, map[string][2]float64{"0": {0, 0}}), nil, nil, true},
		{"no gpu collector", sample(t, nan, nil), nil, nil, true},
		{"no sample", nil, nil, nil, true},
	}
	eq := func(a, b []float64) bool {
		return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := FromAgent(tt.snap)
			if (got.GPUErr != nil) != tt.wantErr || !eq(got.GPUUtil, tt.wantUtil) || !eq(got.GPUProcesses, tt.wantProcs) {
				t.Errorf("FromAgent = util %v, procs %v, err %v; want %v, %v, error %v", got.GPUUtil, got.GPUProcesses, got.GPUErr, tt.wantUtil, tt.wantProcs, tt.wantErr)
			}
			// Whatever FromAgent cannot read keeps the machine up.
			if s := gpuSignal(got, DefaultIdleUtilization); tt.wantErr && s.State != Unknown {
				t.Errorf("GPU signal %s; want unknown", s.State)
			}
		})
	}
}

// TestAgentHandlerAndMetrics drives the watcher as the agent loop does, and
// reads its metrics back through an agent batch.
func TestAgentHandlerAndMetrics(t *testing.T) {
	o := testOptions(t)
	o.RequireNoGPUProcesses = true
	run := &fakeRun{}
	w, _ := New(o, Deps{Run: run.run})
	idle := sample(t, 1, map[string][2]float64{"0": {0.02, 0}, "1": {0, 0}})
	for m := 0; m <= 20; m++ {
		w.HandleTick(t0.Add(time.Duration(m)*time.Minute), idle)
	}
	c := w.StatusCollector()
	var b agent.Batch
	if err := c.Collect(t0, &b); err != nil || c.Name() != "autostop" {
		t.Fatalf("Collect = %v, name %q", err, c.Name())
	}
	got := map[string]float64{}
	for _, s := range b.Series() {
		k := s.Metric.Name
		if len(s.Values) > 0 {
			k += fmt.Sprint(s.Values)
		}
		got[k] = s.Value
	}
	want := map[string]float64{
		agent.AutostopArmed:                              1,
		agent.AutostopIdle:                               20 * 60,
		agent.AutostopIdleThreshold:                      30 * 60,
		agent.AutostopLastActive:                         float64(t0.Unix()),
		agent.AutostopSignalActive + "[gpu_utilization]": 0,
		agent.AutostopSignalUp + "[gpu_utilization]":     1,
		agent.AutostopSignalActive + "[gpu_processes]":   0,
		agent.AutostopSignalUp + "[gpu_processes]":       1,
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("metrics after 20 idle minutes:\n got %v\nwant %v", got, want)
	}
	// A process appears on GPU 1 at minute 21: active again, clock reset.
	busy := sample(t, 1, map[string][2]float64{"0": {0.02, 0}, "1": {0, 1}})
	w.HandleTick(t0.Add(21*time.Minute), busy)
	for m := 22; m <= 50; m++ {
		w.HandleTick(t0.Add(time.Duration(m)*time.Minute), idle)
	}
	w.Wait()
	if got := run.got(); len(got) != 0 {
		t.Errorf("stopped at minute 50 (idle since 21): ran %q", got)
	}
	w.HandleTick(t0.Add(51*time.Minute), idle)
	w.Wait()
	if got := run.got(); !slices.Equal(got, []string{"stop-it"}) {
		t.Errorf("at minute 51: ran %q; want the stop", got)
	}
}
