package collect

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/dl/dltest"
	"github.com/gpuscout/gpuscout/internal/gpu/nvml"
	"github.com/gpuscout/gpuscout/internal/money"
)

func TestMain(m *testing.M) { dltest.Main(m) }

var t0 = time.Date(2026, 11, 30, 21, 45, 19, 0, time.UTC)

// procRoot makes a proc root with the given files.
func procRoot(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func fixture(t *testing.T) string {
	b, err := os.ReadFile("testdata/net-dev")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// openFake opens NVML on the fake C library (internal/gpu/nvml/testdata).
func openFake(t *testing.T) (*nvml.NVML, func(key string, v int64) int32) {
	t.Helper()
	dir := dltest.Build(t, "../../gpu/nvml/testdata/fakenvml.c", "libnvidia-ml.so.1")
	n, err := nvml.OpenEnv(dltest.Env(dir))
	if err != nil {
		t.Fatal(err)
	}
	var set func(key string, v int64) int32
	if _, err := n.Library().Bind([]dl.Symbol{dl.Sym(&set, "fake_nvml_set")}); err != nil {
		t.Fatal(err)
	}
	set("reset", 0)
	t.Cleanup(func() { n.Close() })
	return n, set
}

// Every collector, on good input, names itself, succeeds and emits only
// registered metrics with their labels, no NaN, per-GPU series with a gpu
// and a uuid.
func TestConformance(t *testing.T) {
	root := procRoot(t, map[string]string{"net/dev": fixture(t), "uptime": "7280.06 4480.60\n"})
	fake, err := NewFakeGPUs(2, t0)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := openFake(t)
	g, err := NewGPU(n)
	if err != nil {
		t.Fatal(err)
	}
	net := &Network{Root: root}
	net.Net.EgressBasis = agentconfig.EgressTransmit
	cs := []agent.Collector{g, fake, net,
		&Cost{Root: root, Price: decimal.NewNullDecimal(decimal.RequireFromString("2.5")), Currency: money.USD, Instances: 2, InstanceType: "x"}}
	for _, c := range cs {
		var b agent.Batch
		for i := range 2 {
			if err := c.Collect(t0.Add(time.Duration(i)*time.Second), &b); err != nil {
				t.Errorf("%s: %v", c.Name(), err)
			}
		}
		if b.Err() != nil {
			t.Errorf("%s: %v", c.Name(), b.Err())
		}
		if c.Name() != NameGPU && c.Name() != NameNetwork && c.Name() != NameCost {
			t.Errorf("collector name %q", c.Name())
		}
		if len(b.Series()) == 0 {
			t.Errorf("%s: no series", c.Name())
		}
		for _, s := range b.Series() {
			if math.IsNaN(s.Value) {
				t.Errorf("%s: %s is NaN", c.Name(), s.Metric.Name)
			}
			if strings.HasPrefix(s.Metric.Name, "gpuscout_gpu_") {
				if g, _ := s.Label("gpu"); g == "" {
					t.Errorf("%s: %s without a gpu label", c.Name(), s.Metric.Name)
				}
				if u, _ := s.Label("uuid"); !strings.HasPrefix(u, "GPU-") {
					t.Errorf("%s: %s uuid %q", c.Name(), s.Metric.Name, u)
				}
			}
		}
	}
}

func get(b *agent.Batch, metric string, labels ...string) (float64, bool) {
	var v float64
	found := false
	for _, s := range b.Series() {
		if s.Metric.Name == metric && strings.Join(s.Values, ",") == strings.Join(labels, ",") {
			v, found = s.Value, true
		}
	}
	return v, found
}

// The fake GPUs replay the recorded H200 trace: 10 s in, GPU 0 is at row
// 100 (CSV line 102: 98%, 25%, 1139 MiB, 693.34 W, 58 °C, 1485 MHz, 3201
// MHz, sw_power_cap), GPU 1 a tenth of the trace (33 rows) later (line 135).
func TestFakeGPUs(t *testing.T) {
	f, err := NewFakeGPUs(2, t0)
	if err != nil {
		t.Fatal(err)
	}
	var b agent.Batch
	if err := f.Collect(t0.Add(9*time.Second), &b); err != nil {
		t.Fatal(err)
	}
	b = agent.Batch{}
	if err := f.Collect(t0.Add(10*time.Second), &b); err != nil {
		t.Fatal(err)
	}
	g0, g1 := []string{"0", FakeUUID(0)}, []string{"1", FakeUUID(1)}
	for _, tc := range []struct {
		metric string
		labels []string
		want   float64
	}{
		{agent.GPUUtilization, g0, 0.98},
		{agent.GPUMemoryUtilization, g0, 0.25},
		{agent.GPUMemoryUsed, g0, 1139 << 20},
		{agent.GPUMemoryTotal, g0, 143771 << 20},
		{agent.GPUMemoryUsedRatio, g0, 1139.0 / 143771},
		{agent.GPUPower, g0, 693.34},
		{agent.GPUPowerLimit, g0, 700},
		{agent.GPUTemperature, g0, 58},
		{agent.GPUSMClock, g0, 1485e6},
		{agent.GPUMemoryClock, g0, 3201e6},
		{agent.GPUClockEvent, append(g0, "sw_power_cap"), 1},
		{agent.GPUClockEvent, append(g0, "gpu_idle"), 0},
		{agent.GPUPower, g1, 690.10},
		{agent.GPUSMClock, g1, 1470e6},
		{agent.GPUInfo, []string{"0", FakeUUID(0), "FAKE NVIDIA H200", "580.159.04", "true"}, 1},
	} {
		if got, ok := get(&b, tc.metric, tc.labels...); !ok || math.Abs(got-tc.want) > 1e-9*math.Max(1, math.Abs(tc.want)) {
			t.Errorf("%s%v = %v (present %v), want %v", tc.metric, tc.labels, got, ok, tc.want)
		}
	}
	// The energy counter integrates the replayed power: at 9 s nothing yet
	// (first sample), at 10 s row 100's 693.34 W over 1 s.
	if got, _ := get(&b, agent.GPUEnergy, g0...); math.Abs(got-693.34) > 1e-9 {
		t.Errorf("energy %v J, want 693.34", got)
	}
	if _, ok := get(&b, agent.GPUProcesses, g0...); ok {
		t.Error("the trace has no process count; the fake must not invent one")
	}
}
