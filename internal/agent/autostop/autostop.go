// Package autostop stops an idle GPU machine: idle means every GPU's
// utilisation stayed at or under a threshold for a set time, optionally with no
// SSH session and no process using a GPU. A signal that cannot be read
// counts as active, so the machine is never stopped on a guess. Before the
// stop command a hook runs with a timeout (activity while it runs cancels
// the stop); the last-active time survives
// an agent restart (keyed to the boot id, so a reboot restarts the idle
// clock); dry-run logs what it would do.
//
// The agent loop calls Watcher.Tick with each sample; everything that
// depends on time takes the tick's time, so tests drive it with any clock.
package autostop

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"sync"
	"time"
)

// State is what one signal says at a tick.
type State int

// Signal states. Unknown (unreadable) counts as Active.
const (
	Unknown State = iota
	Idle
	Active
)

// String names the state: idle, active or unknown.
func (s State) String() string {
	switch s {
	case Idle:
		return "idle"
	case Active:
		return "active"
	}
	return "unknown"
}

// Signal names.
const (
	SignalGPU          = "gpu_utilization"
	SignalSSH          = "ssh_sessions"
	SignalGPUProcesses = "gpu_processes"
)

// Signal is one signal's reading at a tick.
type Signal struct {
	Name   string
	State  State
	Detail string // what was read, or why it could not be
}

// Snapshot is what the agent loop read at one tick.
type Snapshot struct {
	// GPUUtil is each GPU's utilisation, 0..1; NaN where it was unreadable.
	GPUUtil []float64
	// GPUErr is set when the GPUs could not be read at all (NVML down).
	GPUErr error
	// GPUProcesses is each GPU's count of compute processes (NaN where
	// unreadable; nil when not read). Deps.GPUProcesses, when set, is used
	// instead.
	GPUProcesses []float64
}

// Action is what a tick did about stopping.
type Action int

// Actions.
const (
	// None: not idle long enough (or waiting to retry a failed stop).
	None Action = iota
	// WouldStop: idle long enough in dry-run; logged, nothing run.
	WouldStop
	// StartedStop: the hook and stop command started at this tick.
	StartedStop
	// Stopping: the hook or stop command started earlier is still running.
	Stopping
)

// String names the action as logs and tests show it.
func (a Action) String() string {
	return [...]string{"none", "would-stop", "started-stop", "stopping"}[a]
}

// Decision is the outcome of one tick.
type Decision struct {
	At         time.Time
	Signals    []Signal
	Idle       bool          // every enabled signal idle at this tick
	LastActive time.Time     // the last time any signal was active (or unknown)
	IdleFor    time.Duration // At - LastActive
	Action     Action
}

// Status is the watcher's state for metrics and `agent check`.
type Status struct {
	// Armed is true when idleness stops the machine: false in dry-run and
	// while a stop sequence is running.
	Armed      bool
	DryRun     bool
	IdleFor    time.Duration
	LastActive time.Time // zero before the first tick
	Stopping   bool
	Signals    []Signal
}

// Deps are the watcher's links to the machine; nil fields get defaults.
type Deps struct {
	// Log gets every decision that matters (default: discard).
	Log *slog.Logger
	// GPUProcesses counts the compute processes on all GPUs (NVML); nil
	// reads them from the Snapshot instead.
	GPUProcesses func() (int, error)
	// SSHSessions counts the SSH sessions (default: CountSSH on
	// Options.ProcRoot and SSHPorts).
	SSHSessions func() (int, error)
	// Run runs a command (default: RunCommand).
	Run func(ctx context.Context, argv []string, timeout time.Duration) Result
}

// Watcher decides, tick by tick, whether the machine has been idle long
// enough, and stops it. It is safe for concurrent use.
type Watcher struct {
	opts Options
	deps Deps
	fp   string

	mu         sync.Mutex
	started    bool // the first tick happened (the state was restored)
	bootID     string
	lastTick   time.Time
	lastActive time.Time
	last       Decision
	savedAt    time.Time
	savedOK    bool
	savedAct   bool
	dryLogged  bool      // the dry-run stop was logged for this idle period
	running    bool      // a stop sequence is running
	aborted    bool      // activity seen while the hook ran: no stop command
	seqDone    bool      // a stop sequence ended since the last tick
	retryAt    time.Time // no new sequence before this
	lastErr    string    // HandleTick's last error, logged once
	wg         sync.WaitGroup
}

// New returns a Watcher for valid options.
func New(opts Options, deps Deps) (*Watcher, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	opts.MaxGap = min(opts.MaxGap, opts.IdleFor)
	opts.SSHPorts = append([]int(nil), opts.SSHPorts...)
	opts.Hook = append([]string(nil), opts.Hook...)
	opts.Stop = append([]string(nil), opts.Stop...)
	if deps.Log == nil {
		deps.Log = slog.New(slog.DiscardHandler)
	}
	if deps.SSHSessions == nil {
		root, ports := opts.ProcRoot, opts.SSHPorts
		deps.SSHSessions = func() (int, error) { return CountSSH(root, ports) }
	}
	if deps.Run == nil {
		deps.Run = RunCommand
	}
	return &Watcher{opts: opts, deps: deps, fp: opts.fingerprint()}, nil
}

// Describe says in one line what the watcher checks and does.
func (w *Watcher) Describe() string {
	o := &w.opts
	s := fmt.Sprintf("stop after %s of %s, then run %q", o.IdleFor, o.signalNames(), o.Stop)
	if len(o.Hook) > 0 {
		s = fmt.Sprintf("stop after %s of %s, then run the hook %q (timeout %s), then %q", o.IdleFor, o.signalNames(), o.Hook, o.HookTimeout, o.Stop)
	}
	if o.DryRun {
		s = "dry run (logs only): " + s
	}
	return s
}

// signals reads every enabled signal. Anything unreadable is Unknown.
func (w *Watcher) signals(snap Snapshot) []Signal {
	o := &w.opts
	out := []Signal{gpuSignal(snap, o.IdleUtilization)}
	if o.RequireNoSSH {
		out = append(out, countSignal(SignalSSH, "SSH sessions", w.deps.SSHSessions))
	}
	if o.RequireNoGPUProcesses {
		count := w.deps.GPUProcesses
		if count == nil {
			count = func() (int, error) { return snapshotProcesses(snap) }
		}
		out = append(out, countSignal(SignalGPUProcesses, "GPU compute processes", count))
	}
	return out
}

func gpuSignal(snap Snapshot, threshold float64) Signal {
	s := Signal{Name: SignalGPU}
	switch {
	case snap.GPUErr != nil:
		s.Detail = "GPUs unreadable: " + snap.GPUErr.Error()
		return s
	case len(snap.GPUUtil) == 0:
		s.Detail = "no GPU reading"
		return s
	}
	maxU := 0.0
	for i, u := range snap.GPUUtil {
		if math.IsNaN(u) || u < 0 || u > 1 {
			s.Detail = fmt.Sprintf("GPU %d utilisation unreadable (%v)", i, u)
			return s
		}
		maxU = max(maxU, u)
	}
	s.State = Idle
	if maxU > threshold {
		s.State = Active
	}
	s.Detail = fmt.Sprintf("max utilisation %.3g%% of %d GPUs (idle at or under %.3g%%)", maxU*100, len(snap.GPUUtil), threshold*100)
	return s
}

// snapshotProcesses sums the snapshot's per-GPU process counts; any GPU
// unread makes the sum unknown.
func snapshotProcesses(snap Snapshot) (int, error) {
	switch {
	case snap.GPUErr != nil:
		return 0, snap.GPUErr
	case len(snap.GPUProcesses) == 0:
		return 0, errors.New("no reading")
	}
	n := 0
	for i, p := range snap.GPUProcesses {
		if math.IsNaN(p) || p < 0 {
			return 0, fmt.Errorf("GPU %d unread", i)
		}
		n += int(p)
	}
	return n, nil
}

func countSignal(name, what string, count func() (int, error)) Signal {
	s := Signal{Name: name}
	if count == nil {
		s.Detail = what + ": no reader"
		return s
	}
	n, err := count()
	switch {
	case err != nil:
		s.Detail = what + " unreadable: " + err.Error()
	case n < 0:
		s.Detail = fmt.Sprintf("%s: count %d", what, n)
	case n == 0:
		s.State, s.Detail = Idle, "0 "+what
	default:
		s.State, s.Detail = Active, fmt.Sprintf("%d %s", n, what)
	}
	return s
}

// Tick reads the signals at now with the agent's snapshot, moves the idle
// clock and, once the machine has been idle for IdleFor, starts the hook
// and the stop command in the background (or, in dry-run, logs them). The
// error reports a state file that could not be written or read; the
// Decision is valid either way.
func (w *Watcher) Tick(now time.Time, snap Snapshot) (Decision, error) {
	sigs := w.signals(snap) // reads files and NVML: outside the lock
	w.mu.Lock()
	defer w.mu.Unlock()
	var errs []error
	idle := true
	for _, s := range sigs {
		idle = idle && s.State == Idle
	}
	if !w.started {
		w.started = true
		if err := w.restore(now); err != nil {
			errs = append(errs, err)
		}
	} else if gap := now.Sub(w.lastTick); gap < 0 || gap > w.opts.MaxGap {
		w.deps.Log.Info("autostop: time between ticks not watched, idle clock restarts", "gap", gap, "max_gap", w.opts.MaxGap)
		w.lastActive = now
	}
	w.lastTick = now
	if !idle {
		w.lastActive = now
		w.dryLogged = false
	}
	d := Decision{At: now, Signals: sigs, Idle: idle, LastActive: w.lastActive, IdleFor: now.Sub(w.lastActive)}
	if w.seqDone {
		w.seqDone = false
		w.retryAt = now.Add(w.opts.RetryAfter)
	}
	switch {
	case w.running:
		d.Action = Stopping
		if !idle && !w.aborted {
			w.aborted = true
			w.deps.Log.Warn("autostop: activity while the stop sequence runs; the stop command will not run after the hook", "signals", summary(sigs))
		}
	case d.IdleFor < w.opts.IdleFor || now.Before(w.retryAt):
	case w.opts.DryRun:
		d.Action = WouldStop
		if !w.dryLogged {
			w.dryLogged = true
			w.deps.Log.Warn("autostop (dry run): idle long enough; would run the hook and stop command", "idle_for", d.IdleFor, "hook", w.opts.Hook, "stop", w.opts.Stop, "signals", summary(sigs))
		}
	default:
		d.Action = StartedStop
		w.running, w.aborted = true, false
		w.deps.Log.Warn("autostop: idle long enough; stopping the machine", "idle_for", d.IdleFor, "hook", w.opts.Hook, "stop", w.opts.Stop, "signals", summary(sigs))
		w.wg.Add(1)
		go w.stopSequence()
	}
	w.last = d
	if err := w.persist(now, idle); err != nil {
		errs = append(errs, err)
	}
	return d, errors.Join(errs...)
}

// restore sets the idle clock at the first tick: the persisted last-active
// time counts only under the same boot, the same options, a last save that
// was idle and recent (within MaxGap), and not in the future. Otherwise
// the time before now was not watched, and the clock starts now.
func (w *Watcher) restore(now time.Time) error {
	w.lastActive = now
	id, err := readBootID(w.opts.ProcRoot)
	if err != nil {
		w.deps.Log.Warn("autostop: boot id unreadable; the idle clock is not persisted across restarts", "err", err)
	}
	w.bootID = id
	if w.opts.StateDir == "" || id == "" {
		return nil
	}
	st, err := loadState(w.opts.StateDir)
	if err != nil || st == nil {
		return err
	}
	why := ""
	switch {
	case st.BootID != id:
		why = "the machine rebooted"
	case st.Options != w.fp:
		why = "the autostop options changed"
	case st.Active:
		why = "it was active when last saved"
	case now.Sub(st.SavedAt) > w.opts.MaxGap || now.Before(st.SavedAt):
		why = fmt.Sprintf("the agent was not watching for %s", now.Sub(st.SavedAt).Round(time.Second))
	case st.LastActive.After(st.SavedAt):
		why = "the saved last-active time is after the save"
	}
	if why != "" {
		w.deps.Log.Info("autostop: idle clock restarts", "why", why)
		return nil
	}
	w.lastActive = st.LastActive
	w.deps.Log.Info("autostop: idle clock restored", "last_active", st.LastActive)
	return nil
}

// persist saves the state when the activity changed, and every half
// MaxGap while it does not (so a restart within MaxGap finds it fresh).
func (w *Watcher) persist(now time.Time, idle bool) error {
	if w.opts.StateDir == "" || w.bootID == "" {
		return nil
	}
	if w.savedOK && w.savedAct == !idle && now.Sub(w.savedAt) < w.opts.MaxGap/2 && !now.Before(w.savedAt) {
		return nil
	}
	err := saveState(w.opts.StateDir, &state{BootID: w.bootID, Options: w.fp, LastActive: w.lastActive, SavedAt: now, Active: !idle})
	if err != nil {
		w.savedOK = false
		return fmt.Errorf("autostop: saving the idle clock: %w", err)
	}
	w.savedAt, w.savedOK, w.savedAct = now, true, !idle
	return nil
}

// stopSequence runs the hook (its failure or timeout is logged and the
// stop goes ahead, as SkyPilot's hooks do), then the stop command, unless
// a tick saw activity while the hook ran (someone logged in, a job
// started): then the machine stays up and the idle clock, reset by that
// activity, starts again.
func (w *Watcher) stopSequence() {
	defer w.wg.Done()
	ctx := context.Background()
	if len(w.opts.Hook) > 0 {
		r := w.deps.Run(ctx, w.opts.Hook, w.opts.HookTimeout)
		if r.Err != nil {
			w.deps.Log.Warn("autostop: hook failed; stopping anyway", "hook", r.Argv, "err", r.Err, "took", r.Took, "output", r.Output)
		} else {
			w.deps.Log.Info("autostop: hook done", "hook", r.Argv, "took", r.Took, "output", r.Output)
		}
	}
	w.mu.Lock()
	aborted := w.aborted
	w.mu.Unlock()
	if aborted {
		w.deps.Log.Warn("autostop: activity during the hook; not stopping, the idle clock restarted", "stop", w.opts.Stop)
		w.mu.Lock()
		w.running, w.seqDone = false, true
		w.mu.Unlock()
		return
	}
	r := w.deps.Run(ctx, w.opts.Stop, w.opts.StopTimeout)
	if r.Err != nil {
		w.deps.Log.Error("autostop: stop command failed; it runs again after retry_after", "stop", r.Argv, "err", r.Err, "output", r.Output, "retry_after", w.opts.RetryAfter)
	} else {
		w.deps.Log.Warn("autostop: stop command done", "stop", r.Argv, "took", r.Took, "output", r.Output)
	}
	w.mu.Lock()
	w.running, w.seqDone = false, true
	w.mu.Unlock()
}

// Wait blocks until a running stop sequence has ended.
func (w *Watcher) Wait() { w.wg.Wait() }

// Status returns the state as of the last tick.
func (w *Watcher) Status() Status {
	w.mu.Lock()
	defer w.mu.Unlock()
	return Status{
		Armed:      !w.opts.DryRun && !w.running,
		DryRun:     w.opts.DryRun,
		IdleFor:    w.last.IdleFor,
		LastActive: w.lastActive,
		Stopping:   w.running,
		Signals:    append([]Signal(nil), w.last.Signals...),
	}
}

func summary(sigs []Signal) string {
	s := make([]string, len(sigs))
	for i, g := range sigs {
		s[i] = fmt.Sprintf("%s=%s (%s)", g.Name, g.State, g.Detail)
	}
	return strings.Join(s, "; ")
}
