package autostop_test

import (
	"context"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/agent/autostop"
	"github.com/gpuscout/gpuscout/internal/agent/collect"
)

// TestAgentLoopWithFakeH200 wires autostop into the agent's real sampling
// loop over a fake GPU that replays the recorded H200 trace, sampled every
// simulated second for five minutes. The trace (332 rows of 100 ms,
// collect/h200-load-100ms.csv) has utilisation at or under 5% for its first
// 7.6 s and last 5.6 s, and 20 s of load between, so looped it is idle for
// 13.2 s in every 33.2 s. It is never idle for a minute, so nothing stops;
// the idle clock runs through each idle stretch and is exported.
func TestAgentLoopWithFakeH200(t *testing.T) {
	start := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	fake, err := collect.NewFakeGPUs(1, start)
	if err != nil {
		t.Fatal(err)
	}
	o := autostop.Defaults()
	o.IdleFor = time.Minute
	o.ProcRoot = t.TempDir() // no boot id: nothing persisted
	o.Stop = []string{"/nonexistent/must-not-run"}
	ran := 0
	w, err := autostop.New(o, autostop.Deps{Run: func(_ context.Context, argv []string, _ time.Duration) autostop.Result {
		ran++
		return autostop.Result{Argv: argv}
	}})
	if err != nil {
		t.Fatal(err)
	}
	store := &agent.Store{}
	loop := agent.NewLoop(time.Second, store, fake, w.StatusCollector())
	loop.Handlers = []agent.TickHandler{agent.TickFunc(w.HandleTick)}
	now := start
	loop.Now = func() time.Time { return now }
	maxIdle, exported := time.Duration(0), 0.0
	for i := 0; i < 300; i++ {
		now = start.Add(time.Duration(i) * time.Second)
		snap := loop.Sample()
		maxIdle = max(maxIdle, w.Status().IdleFor)
		for _, s := range snap.Get(agent.AutostopIdle) {
			exported = max(exported, s.Value)
		}
	}
	w.Wait()
	if ran != 0 {
		t.Errorf("the stop command ran %d times; the trace's GPU is busy every 33.2 s", ran)
	}
	// Sampled each second, a 13.2 s idle stretch shows 13 or 14 s of idle
	// clock (the last active sample falls before it, the first after).
	if maxIdle < 13*time.Second || maxIdle > 14*time.Second {
		t.Errorf("longest idle time %s; want 13 to 14 s (the trace's 13.2 s idle stretch)", maxIdle)
	}
	if exported != maxIdle.Seconds() {
		t.Errorf("largest exported %s = %v; want %v", agent.AutostopIdle, exported, maxIdle.Seconds())
	}
}
