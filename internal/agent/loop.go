package agent

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"
)

// Collector reads one source (NVML, /proc/net/dev, the cost meter) into a
// batch. An error marks the collector down (gpuscout_collector_up 0) for
// this sample; the series it added before failing are kept, so one lost GPU
// leaves the others' values. Collect is never called again while a previous
// call is still running.
type Collector interface {
	Name() string
	Collect(now time.Time, b *Batch) error
}

// TickHandler is called after each sample with the new snapshot, in the
// loop's goroutine: the rules, notifiers and autostop hook in here. A
// handler must return quickly (queue slow work); it must not change s.
type TickHandler interface {
	Tick(now time.Time, s *Snapshot)
}

// TickFunc adapts a function to TickHandler.
type TickFunc func(now time.Time, s *Snapshot)

// Tick calls f.
func (f TickFunc) Tick(now time.Time, s *Snapshot) { f(now, s) }

// Loop samples every collector on its own ticker and stores the snapshot.
type Loop struct {
	Interval time.Duration
	Store    *Store
	Handlers []TickHandler
	// Static series are added to every snapshot (gpuscout_agent_info).
	Static []Series
	Log    *slog.Logger
	// Now is the clock (time.Now when nil).
	Now func() time.Time

	runners []*runner
}

type runner struct {
	c    Collector
	busy atomic.Bool
	// last error logged, to log a failure once and its recovery once
	lastErr string
}

// NewLoop makes a loop over the collectors.
func NewLoop(interval time.Duration, store *Store, cs ...Collector) *Loop {
	l := &Loop{Interval: interval, Store: store}
	for _, c := range cs {
		l.runners = append(l.runners, &runner{c: c})
	}
	return l
}

// Collectors returns the names of the loop's collectors.
func (l *Loop) Collectors() []string {
	var out []string
	for _, r := range l.runners {
		out = append(out, r.c.Name())
	}
	return out
}

func (l *Loop) now() time.Time {
	if l.Now != nil {
		return l.Now()
	}
	return time.Now()
}

// timeout is how long one sample waits for its collectors: most of the
// interval, so that a hung collector (an NVML call that never returns)
// cannot stall the others or the scrape.
func (l *Loop) timeout() time.Duration { return l.Interval * 9 / 10 }

type result struct {
	i      int
	series []Series
	err    error
	dur    time.Duration
}

// Sample runs every collector once, stores and returns the snapshot, and
// calls the handlers.
func (l *Loop) Sample() *Snapshot {
	now := l.now()
	ch := make(chan result, len(l.runners))
	results := make([]*result, len(l.runners))
	started := 0
	for i, r := range l.runners {
		if !r.busy.CompareAndSwap(false, true) {
			results[i] = &result{i: i, err: fmt.Errorf("collector %s: its previous sample is still running", r.c.Name())}
			continue
		}
		started++
		go func() {
			t0 := time.Now()
			var b Batch
			err := func() (err error) {
				defer func() {
					if p := recover(); p != nil {
						err = fmt.Errorf("collector %s panicked: %v", r.c.Name(), p)
					}
				}()
				return r.c.Collect(now, &b)
			}()
			if err == nil {
				err = b.Err()
			}
			res := result{i: i, series: b.Series(), err: err, dur: time.Since(t0)}
			// Free before answering: the next sample may start as soon as
			// this one has its answer (a deferred free raced with it).
			r.busy.Store(false)
			ch <- res
		}()
	}
	timer := time.NewTimer(l.timeout())
	defer timer.Stop()
wait:
	for got := 0; got < started; got++ {
		select {
		case res := <-ch:
			results[res.i] = &res
		case <-timer.C:
			break wait
		}
	}
	snap := &Snapshot{At: now, Series: append([]Series(nil), l.Static...)}
	up, _ := Lookup(CollectorUp)
	dur, _ := Lookup(CollectorDuration)
	for i, r := range l.runners {
		res := results[i]
		if res == nil {
			res = &result{err: fmt.Errorf("collector %s: no answer within %s", r.c.Name(), l.timeout()), dur: l.timeout()}
		}
		snap.Series = append(snap.Series, res.series...)
		v := 1.0
		if res.err != nil {
			v = 0
		}
		l.logChange(r, res.err)
		snap.Series = append(snap.Series,
			Series{Metric: up, Values: []string{r.c.Name()}, Value: v},
			Series{Metric: dur, Values: []string{r.c.Name()}, Value: res.dur.Seconds()})
	}
	ts, _ := Lookup(LastSampleTimestamp)
	snap.Series = append(snap.Series, Series{Metric: ts, Value: float64(now.UnixMilli()) / 1000})
	l.Store.Save(snap)
	for _, h := range l.Handlers {
		h.Tick(now, snap)
	}
	return snap
}

// logChange logs a collector's failure when it starts or changes, and its
// recovery, not every sample.
func (l *Loop) logChange(r *runner, err error) {
	if l.Log == nil {
		return
	}
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	if msg == r.lastErr {
		return
	}
	if err != nil {
		l.Log.Warn("collector down", "collector", r.c.Name(), "err", msg)
	} else {
		l.Log.Info("collector up", "collector", r.c.Name())
	}
	r.lastErr = msg
}

// Run samples at once and then every Interval until ctx is done.
func (l *Loop) Run(ctx context.Context) error {
	t := time.NewTicker(l.Interval)
	defer t.Stop()
	l.Sample()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			l.Sample()
		}
	}
}
