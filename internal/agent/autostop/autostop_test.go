package autostop

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

const bootA = "a53b7244-3e6c-43ce-965a-6ea1d90c1225"
const bootB = "0f6a2e1c-9d7b-4c52-8e8e-2b1f3c4d5e6f"

// fakeRun records the commands it is asked to run; fail makes a program fail.
type fakeRun struct {
	mu    sync.Mutex
	calls []string
	fail  map[string]bool
	block chan struct{} // when set, every run waits for it to close
}

func (f *fakeRun) run(_ context.Context, argv []string, _ time.Duration) Result {
	if f.block != nil {
		<-f.block
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, strings.Join(argv, " "))
	if f.fail[argv[0]] {
		return Result{Argv: argv, Err: fmt.Errorf("%s: exit status 1", argv[0])}
	}
	return Result{Argv: argv}
}

func (f *fakeRun) got() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.calls)
}

// procRoot makes a procfs root whose boot id is id ("" for none).
func procRoot(t *testing.T, id string) string {
	t.Helper()
	root := t.TempDir()
	if id != "" {
		dir := filepath.Join(root, "sys", "kernel", "random")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "boot_id"), []byte(id+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func testOptions(t *testing.T) Options {
	o := Defaults()
	o.ProcRoot = procRoot(t, bootA)
	o.Stop = []string{"stop-it"}
	return o
}

func count(n int, err error) func() (int, error) { return func() (int, error) { return n, err } }

var (
	idleGPUs = Snapshot{GPUUtil: []float64{0.01, 0}}
	busyGPUs = Snapshot{GPUUtil: []float64{0.01, 0.6}}
)

func TestDecisionTable(t *testing.T) {
	errRead := errors.New("permission denied")
	gpus := []struct {
		name string
		snap Snapshot
		want State
	}{
		{"gpus under threshold", idleGPUs, Idle},
		{"one gpu busy", busyGPUs, Active},
		{"one gpu at the threshold", Snapshot{GPUUtil: []float64{0, 0.05}}, Idle},
		{"one gpu just over the threshold", Snapshot{GPUUtil: []float64{0, 0.06}}, Active},
		{"nvml down", Snapshot{GPUErr: errors.New("NVML_ERROR_GPU_IS_LOST")}, Unknown},
		{"no gpu reading", Snapshot{}, Unknown},
		{"one gpu unreadable", Snapshot{GPUUtil: []float64{0, math.NaN()}}, Unknown},
		{"utilisation out of range", Snapshot{GPUUtil: []float64{0, 1.5}}, Unknown},
	}
	sshs := []struct {
		name  string
		count func() (int, error)
		want  State
	}{
		{"no ssh", count(0, nil), Idle},
		{"ssh session", count(1, nil), Active},
		{"ssh unreadable", count(0, errRead), Unknown},
	}
	procs := []struct {
		name  string
		count func() (int, error)
		want  State
	}{
		{"no gpu process", count(0, nil), Idle},
		{"gpu processes", count(2, nil), Active},
		{"processes unreadable", count(0, errRead), Unknown},
	}
	root := procRoot(t, bootA)
	for _, g := range gpus {
		for _, s := range sshs {
			for _, p := range procs {
				name := g.name + "/" + s.name + "/" + p.name
				wantIdle := g.want == Idle && s.want == Idle && p.want == Idle
				t.Run(name, func(t *testing.T) {
					o := Defaults()
					o.ProcRoot, o.Stop = root, []string{"stop-it"}
					o.RequireNoSSH, o.RequireNoGPUProcesses = true, true
					o.MaxGap = o.IdleFor // two ticks, IdleFor apart, watch it all
					run := &fakeRun{}
					w, err := New(o, Deps{SSHSessions: s.count, GPUProcesses: p.count, Run: run.run})
					if err != nil {
						t.Fatal(err)
					}
					d0, err := w.Tick(t0, g.snap)
					if err != nil {
						t.Fatal(err)
					}
					d, _ := w.Tick(t0.Add(o.IdleFor), g.snap)
					w.Wait()
					var got []State
					for _, sig := range d.Signals {
						got = append(got, sig.State)
					}
					if want := []State{g.want, s.want, p.want}; !slices.Equal(got, want) {
						t.Errorf("signal states = %v; want %v (%s)", got, want, summary(d.Signals))
					}
					if d0.Action != None || d.Idle != wantIdle {
						t.Errorf("first tick action %s, idle %v; want none, %v", d0.Action, d.Idle, wantIdle)
					}
					wantAction, wantRuns, wantIdleFor := None, []string(nil), time.Duration(0)
					if wantIdle {
						wantAction, wantRuns, wantIdleFor = StartedStop, []string{"stop-it"}, o.IdleFor
					}
					if d.Action != wantAction || d.IdleFor != wantIdleFor {
						t.Errorf("after %s: action %s, idle for %s; want %s, %s", o.IdleFor, d.Action, d.IdleFor, wantAction, wantIdleFor)
					}
					if got := run.got(); !slices.Equal(got, wantRuns) {
						t.Errorf("commands run = %q; want %q", got, wantRuns)
					}
				})
			}
		}
	}
}

// TestProcessesFromSnapshot: without an injected reader, the process
// signal reads the snapshot's per-GPU counts; a GPU unread is unknown.
func TestProcessesFromSnapshot(t *testing.T) {
	tests := []struct {
		name string
		snap Snapshot
		want State
	}{
		{"none", Snapshot{GPUUtil: []float64{0, 0}, GPUProcesses: []float64{0, 0}}, Idle},
		{"one on gpu 1", Snapshot{GPUUtil: []float64{0, 0}, GPUProcesses: []float64{0, 1}}, Active},
		{"gpu 1 unread", Snapshot{GPUUtil: []float64{0, 0}, GPUProcesses: []float64{0, math.NaN()}}, Unknown},
		{"not read", Snapshot{GPUUtil: []float64{0, 0}}, Unknown},
		{"nvml down", Snapshot{GPUErr: errors.New("NVML down"), GPUProcesses: []float64{0}}, Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := testOptions(t)
			o.RequireNoGPUProcesses = true
			w, _ := New(o, Deps{})
			d, _ := w.Tick(t0, tt.snap)
			if got := d.Signals[1]; got.Name != SignalGPUProcesses || got.State != tt.want {
				t.Errorf("signal %s = %s (%s); want %s", got.Name, got.State, got.Detail, tt.want)
			}
		})
	}
}

// TestDisabledSignalsIgnored: signals not asked for are not read, so their
// failures do not keep the machine up.
func TestDisabledSignalsIgnored(t *testing.T) {
	o := testOptions(t)
	o.MaxGap = o.IdleFor
	run := &fakeRun{}
	broken := count(0, errors.New("unreadable"))
	w, _ := New(o, Deps{SSHSessions: broken, GPUProcesses: broken, Run: run.run})
	w.Tick(t0, idleGPUs)
	d, _ := w.Tick(t0.Add(o.IdleFor), idleGPUs)
	w.Wait()
	if len(d.Signals) != 1 || d.Action != StartedStop {
		t.Errorf("GPU signal only: %d signals, action %s; want 1, started-stop", len(d.Signals), d.Action)
	}
}

// timeline ticks once a minute for the given minutes; snap gives the
// snapshot and ssh count at each minute. It returns the minute of the first
// stop (-1 for none) and the commands run.
func timeline(t *testing.T, o Options, minutes int, at func(m int) (Snapshot, error)) (int, []string) {
	t.Helper()
	run := &fakeRun{}
	var sshErr error
	o.RequireNoSSH = true
	o.RetryAfter = time.Hour // one stop per timeline (retries: TestStopSequence)
	w, err := New(o, Deps{SSHSessions: func() (int, error) { return 0, sshErr }, Run: run.run})
	if err != nil {
		t.Fatal(err)
	}
	first := -1
	for m := 0; m <= minutes; m++ {
		var snap Snapshot
		snap, sshErr = at(m)
		d, _ := w.Tick(t0.Add(time.Duration(m)*time.Minute), snap)
		w.Wait()
		if d.Action == StartedStop && first < 0 {
			first = m
		}
	}
	return first, run.got()
}

func TestIdleClock(t *testing.T) {
	errSSH := errors.New("/proc/net/tcp: permission denied")
	tests := []struct {
		name      string
		minutes   int
		at        func(m int) (Snapshot, error)
		wantFirst int
	}{
		{"idle from the start", 40, func(int) (Snapshot, error) { return idleGPUs, nil }, 30},
		// The window's maximum decides: one busy minute restarts the clock.
		{"one burst at minute 20", 60, func(m int) (Snapshot, error) {
			if m == 20 {
				return busyGPUs, nil
			}
			return idleGPUs, nil
		}, 50},
		{"ssh unreadable at minute 10", 60, func(m int) (Snapshot, error) {
			if m == 10 {
				return idleGPUs, errSSH
			}
			return idleGPUs, nil
		}, 40},
		// The fault test: autostop never fires while a signal is unknown.
		{"ssh unreadable for four hours", 240, func(int) (Snapshot, error) { return idleGPUs, errSSH }, -1},
		{"nvml down for four hours", 240, func(int) (Snapshot, error) { return Snapshot{GPUErr: errors.New("NVML unloaded")}, nil }, -1},
		{"busy for four hours", 240, func(int) (Snapshot, error) { return busyGPUs, nil }, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, runs := timeline(t, testOptions(t), tt.minutes, tt.at)
			if first != tt.wantFirst {
				t.Errorf("first stop at minute %d; want %d", first, tt.wantFirst)
			}
			if wantRuns := 0; tt.wantFirst >= 0 {
				wantRuns = 1
				if len(runs) != wantRuns {
					t.Errorf("commands run %q; want one stop", runs)
				}
			} else if len(runs) != 0 {
				t.Errorf("commands run %q; want none", runs)
			}
		})
	}
}

// TestUnwatchedGap: time between ticks longer than MaxGap, or a clock that
// went back, was not watched and restarts the idle clock.
func TestUnwatchedGap(t *testing.T) {
	tests := []struct {
		name string
		next time.Duration // the second tick, after one at t0
		want time.Time     // LastActive after it
	}{
		{"within max gap", 2 * time.Minute, t0},
		{"longer than max gap", 2*time.Minute + time.Second, t0.Add(2*time.Minute + time.Second)},
		{"clock went back", -time.Second, t0.Add(-time.Second)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, _ := New(testOptions(t), Deps{Run: (&fakeRun{}).run})
			w.Tick(t0, idleGPUs)
			d, _ := w.Tick(t0.Add(tt.next), idleGPUs)
			if !d.LastActive.Equal(tt.want) {
				t.Errorf("LastActive = %s; want %s", d.LastActive, tt.want)
			}
		})
	}
}

func TestStopSequence(t *testing.T) {
	tests := []struct {
		name  string
		hook  []string
		fail  map[string]bool
		want  []string
		retry bool // the stop runs again after RetryAfter
		log   string
	}{
		{"stop only", nil, nil, []string{"stop-it"}, false, "stop command done"},
		{"hook then stop", []string{"save-ckpt", "--all"}, nil, []string{"save-ckpt --all", "stop-it"}, false, "hook done"},
		{"failed hook, stop anyway", []string{"save-ckpt"}, map[string]bool{"save-ckpt": true}, []string{"save-ckpt", "stop-it"}, false, "hook failed; stopping anyway"},
		{"failed stop is retried", nil, map[string]bool{"stop-it": true}, []string{"stop-it", "stop-it"}, true, "stop command failed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := testOptions(t)
			o.Hook = tt.hook
			var logs bytes.Buffer
			run := &fakeRun{fail: tt.fail}
			w, _ := New(o, Deps{Run: run.run, Log: slog.New(slog.NewTextHandler(&logs, nil))})
			var actions []string
			for m := 0; m <= 40; m++ {
				d, _ := w.Tick(t0.Add(time.Duration(m)*time.Minute), idleGPUs)
				w.Wait()
				if d.Action != None {
					actions = append(actions, fmt.Sprintf("%d:%s", m, d.Action))
				}
			}
			// After a sequence, the next one waits RetryAfter (5m) from the
			// tick that saw it end (minute 31).
			want := []string{"30:started-stop", "36:started-stop"}
			if got := run.got(); !slices.Equal(got[:min(len(got), len(tt.want))], tt.want) {
				t.Errorf("commands run %q; want them to start with %q", got, tt.want)
			}
			if !slices.Equal(actions, want) {
				t.Errorf("actions %q; want %q", actions, want)
			}
			if !strings.Contains(logs.String(), tt.log) {
				t.Errorf("log %q; want it to mention %q", logs.String(), tt.log)
			}
		})
	}
}

// TestStoppingStatus: while the hook runs, ticks say so, nothing starts
// twice, and the watcher is not armed.
func TestStoppingStatus(t *testing.T) {
	o := testOptions(t)
	o.Hook = []string{"slow-hook"}
	o.MaxGap = o.IdleFor
	run := &fakeRun{block: make(chan struct{})}
	w, _ := New(o, Deps{Run: run.run})
	if s := w.Status(); !s.Armed || s.Stopping {
		t.Errorf("before: Status armed %v, stopping %v; want true, false", s.Armed, s.Stopping)
	}
	w.Tick(t0, idleGPUs)
	d1, _ := w.Tick(t0.Add(30*time.Minute), idleGPUs)
	d2, _ := w.Tick(t0.Add(31*time.Minute), idleGPUs)
	s := w.Status()
	close(run.block)
	w.Wait()
	if d1.Action != StartedStop || d2.Action != Stopping {
		t.Errorf("actions %s, %s; want started-stop, stopping", d1.Action, d2.Action)
	}
	if s.Armed || !s.Stopping || s.IdleFor != 31*time.Minute || !s.LastActive.Equal(t0) {
		t.Errorf("during the hook: Status %+v; want not armed, stopping, idle 31m since %s", s, t0)
	}
	if got := run.got(); !slices.Equal(got, []string{"slow-hook", "stop-it"}) {
		t.Errorf("commands run %q; want the hook and the stop once", got)
	}
}

// TestActivityDuringHook: activity seen while the hook runs cancels the
// stop command; the machine stays up and the idle clock starts again.
func TestActivityDuringHook(t *testing.T) {
	o := testOptions(t)
	o.Hook = []string{"slow-hook"}
	o.MaxGap = o.IdleFor
	run := &fakeRun{block: make(chan struct{})}
	var logs bytes.Buffer
	w, _ := New(o, Deps{Run: run.run, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	w.Tick(t0, idleGPUs)
	w.Tick(t0.Add(30*time.Minute), idleGPUs)
	d, _ := w.Tick(t0.Add(31*time.Minute), busyGPUs) // a job starts during the hook
	close(run.block)
	w.Wait()
	if d.Action != Stopping || !d.LastActive.Equal(t0.Add(31*time.Minute)) {
		t.Errorf("tick during the hook: action %s, last active %s; want stopping, +31m", d.Action, d.LastActive.Sub(t0))
	}
	if got := run.got(); !slices.Equal(got, []string{"slow-hook"}) {
		t.Errorf("commands run %q; want the hook only", got)
	}
	if !strings.Contains(logs.String(), "activity during the hook; not stopping") {
		t.Errorf("log %q; want it to say why it did not stop", logs.String())
	}
	if s := w.Status(); !s.Armed || s.Stopping {
		t.Errorf("after: armed %v, stopping %v; want armed again", s.Armed, s.Stopping)
	}
	// Idle again from minute 31: the next stop comes at 61, not before.
	run.block = nil
	for m := 32; m <= 61; m++ {
		d, _ = w.Tick(t0.Add(time.Duration(m)*time.Minute), idleGPUs)
		w.Wait()
		if d.Action == StartedStop && m != 61 {
			t.Fatalf("stopped at minute %d; want 61", m)
		}
	}
	if got := run.got(); !slices.Equal(got, []string{"slow-hook", "slow-hook", "stop-it"}) {
		t.Errorf("commands run %q; want the second sequence to stop", got)
	}
}

func TestDryRun(t *testing.T) {
	o := testOptions(t)
	o.DryRun = true
	o.Hook = []string{"save-ckpt"}
	var logs bytes.Buffer
	run := &fakeRun{}
	w, _ := New(o, Deps{Run: run.run, Log: slog.New(slog.NewTextHandler(&logs, nil))})
	var changes []string // the action at each tick where it changed
	prev := None
	for m := 0; m <= 70; m++ {
		snap := idleGPUs
		if m == 40 {
			snap = busyGPUs
		}
		d, _ := w.Tick(t0.Add(time.Duration(m)*time.Minute), snap)
		w.Wait()
		if d.Action != prev {
			changes = append(changes, fmt.Sprintf("%d:%s", m, d.Action))
			prev = d.Action
		}
	}
	if want := []string{"30:would-stop", "40:none", "70:would-stop"}; !slices.Equal(changes, want) {
		t.Errorf("dry-run action changes %q; want %q", changes, want)
	}
	if got := run.got(); len(got) != 0 {
		t.Errorf("dry run ran %q; want nothing", got)
	}
	if n := strings.Count(logs.String(), "(dry run)"); n != 2 {
		t.Errorf("dry-run log lines = %d; want 2 (once per idle period):\n%s", n, logs.String())
	}
	if s := w.Status(); s.Armed || !s.DryRun {
		t.Errorf("Status armed %v, dry run %v; want false, true", s.Armed, s.DryRun)
	}
	if d := w.Describe(); !strings.HasPrefix(d, "dry run (logs only): stop after 30m0s of GPU utilisation <= 5%, then run the hook [\"save-ckpt\"]") {
		t.Errorf("Describe() = %q", d)
	}
}
