package autostop

import (
	"errors"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent"
)

// GPUCollector is the name of the agent's GPU collector: while its
// gpuscout_collector_up is not 1, the GPU readings are not whole and the
// GPU signal is unknown.
const GPUCollector = "gpu"

// FromAgent reads the autostop signals in one agent sample: each GPU's
// utilisation and compute-process count, for every GPU in gpuscout_gpu_info
// (ordered by index). A GPU without a reading is NaN (unknown); a GPU
// collector that is down or absent sets GPUErr.
func FromAgent(s *agent.Snapshot) Snapshot {
	var out Snapshot
	if s == nil {
		out.GPUErr = errors.New("no agent sample yet")
		return out
	}
	up := math.NaN()
	for _, x := range s.Get(agent.CollectorUp) {
		if c, _ := x.Label("collector"); c == GPUCollector {
			up = x.Value
		}
	}
	if up != 1 {
		out.GPUErr = errors.New("the gpu collector is down or not running")
		if math.IsNaN(up) {
			out.GPUErr = errors.New("no gpu collector in the sample")
		}
		return out
	}
	var gpus []string
	for _, x := range s.Get(agent.GPUInfo) {
		if g, _ := x.Label("gpu"); !slices.Contains(gpus, g) {
			gpus = append(gpus, g)
		}
	}
	slices.SortFunc(gpus, func(a, b string) int {
		i, _ := strconv.Atoi(a)
		j, _ := strconv.Atoi(b)
		return i - j
	})
	byGPU := func(name string) []float64 {
		v := make([]float64, len(gpus))
		for i := range v {
			v[i] = math.NaN()
		}
		for _, x := range s.Get(name) {
			g, _ := x.Label("gpu")
			if i := slices.Index(gpus, g); i >= 0 {
				v[i] = x.Value
			}
		}
		return v
	}
	out.GPUUtil = byGPU(agent.GPUUtilization)
	out.GPUProcesses = byGPU(agent.GPUProcesses)
	return out
}

// HandleTick is the agent loop's tick handler (agent.TickFunc(w.HandleTick)):
// each sample goes to Tick. A state file that cannot be written is logged
// when the error starts or changes, not at every tick.
func (w *Watcher) HandleTick(now time.Time, s *agent.Snapshot) {
	_, err := w.Tick(now, FromAgent(s))
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	w.mu.Lock()
	changed := msg != w.lastErr
	w.lastErr = msg
	w.mu.Unlock()
	if changed && err != nil {
		w.deps.Log.Warn("autostop", "err", err)
	}
}

// StatusCollector is an agent collector (agent.Collector) of autostop's
// own metrics, read from the watcher's last tick, so a sample shows the
// tick before it.
type StatusCollector struct{ w *Watcher }

// StatusCollector returns the collector of the watcher's metrics.
func (w *Watcher) StatusCollector() *StatusCollector { return &StatusCollector{w: w} }

// Name is the collector's name in gpuscout_collector_up.
func (c *StatusCollector) Name() string { return "autostop" }

// Collect adds the watcher's status to b.
func (c *StatusCollector) Collect(_ time.Time, b *agent.Batch) error {
	st := c.w.Status()
	b.Add(agent.AutostopArmed, bool01(st.Armed))
	b.Add(agent.AutostopIdle, st.IdleFor.Seconds())
	b.Add(agent.AutostopIdleThreshold, c.w.opts.IdleFor.Seconds())
	if !st.LastActive.IsZero() {
		b.Add(agent.AutostopLastActive, float64(st.LastActive.UnixMilli())/1000)
	}
	for _, s := range st.Signals {
		b.Add(agent.AutostopSignalActive, bool01(s.State != Idle), s.Name)
		b.Add(agent.AutostopSignalUp, bool01(s.State != Unknown), s.Name)
	}
	return b.Err()
}

func bool01(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// The agent loop takes these.
var (
	_ agent.Collector   = (*StatusCollector)(nil)
	_ agent.TickHandler = agent.TickFunc((*Watcher)(nil).HandleTick)
)
