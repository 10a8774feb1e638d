package server

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// The write probe of /healthz: a commit to the store's health table
// (store.ProbeWrite) tells a store that answers reads but takes no writes
// (a lock held by another process, a read-only database or disk, a full
// disk) from a healthy one. It costs a commit, so its result is reused for
// healthProbeEvery, and one probe runs at a time, however many checks ask.
const (
	healthProbeEvery   = 5 * time.Second
	healthWait         = 2 * time.Second  // what /healthz waits for the store
	healthProbeTimeout = 30 * time.Second // a probe's own bound, past any busy timeout
)

// errProbeSlow: the probe did not answer within the check's wait.
var errProbeSlow = errors.New("the write probe did not commit within " + healthWait.String())

// writeProbe holds the last probe's result and the probe in flight.
type writeProbe struct {
	mu      sync.Mutex
	at      time.Time // when the last result came (zero: none yet)
	err     error
	running chan struct{} // closed when the probe in flight ends; nil: none
}

// check returns the last result while it is fresh; else it starts a probe
// (unless one runs) and waits for it until ctx ends (errProbeSlow). A probe
// outlives the check that started it, so that a slow store's answer is
// still recorded for the next check.
func (p *writeProbe) check(ctx context.Context, now func() time.Time, probe func(context.Context) error) error {
	p.mu.Lock()
	if p.running == nil && !p.at.IsZero() {
		if age := now().Sub(p.at); age >= 0 && age < healthProbeEvery {
			err := p.err
			p.mu.Unlock()
			return err
		}
	}
	if p.running == nil {
		done := make(chan struct{})
		p.running = done
		go func() {
			pctx, cancel := context.WithTimeout(context.Background(), healthProbeTimeout)
			err := probe(pctx)
			cancel()
			p.mu.Lock()
			p.at, p.err, p.running = now(), err, nil
			p.mu.Unlock()
			close(done)
		}()
	}
	running := p.running
	p.mu.Unlock()
	select {
	case <-running:
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.err
	case <-ctx.Done():
		return errProbeSlow
	}
}

// cannotWrite is the answer's words for a failed probe: what kind of
// failure, never the database's own message.
func cannotWrite(err error) string {
	const head = "the store answers reads but cannot commit a write: "
	switch {
	case errors.Is(err, store.ErrBusy):
		return head + "the database is locked (another process holds its write lock); uploads get 503 until it is released"
	case errors.Is(err, errProbeSlow):
		return head + "a test write did not commit within " + healthWait.String() + " (the database locked by another process, or overloaded)"
	case errors.Is(err, store.ErrReadOnly):
		return head + "the database is read-only (a read-only file or disk, or a PostgreSQL standby)"
	case errors.Is(err, store.ErrFull):
		return head + "the disk or the database is full"
	}
	return head + "the server's log has the error"
}
