package sqlite

import (
	"context"
	"errors"
	"fmt"
	"github.com/gpuscout/gpuscout/internal/store/sqlite/sqlitelock"
	"path/filepath"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// Puts that meet a write lock another process holds each fail within about
// the busy timeout of their call, with ErrBusy, however many wait: before,
// a failed batch was retried a document at a time, each waiting the busy
// timeout again (8 puts: the last answered after 9 timeouts), and puts
// queued behind it waited without bound. Once the lock is gone, puts
// succeed.
func TestPutsUnderAnExternalLockFailWithinTheBusyTimeout(t *testing.T) {
	const busy = 2 * time.Second
	path := filepath.Join(t.TempDir(), "g.db")
	s, err := OpenWith(path, Options{BusyTimeout: busy})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	release := sqlitelock.Hold(t, path)
	type result struct {
		took time.Duration
		err  error
	}
	results := make(chan result, 8)
	for i := range cap(results) {
		go func() {
			body := fmt.Appendf(nil, `{"locked":%d}`, i)
			start := time.Now()
			_, err := s.PutDocument(context.Background(), &store.Document{ID: store.DocumentID(body), Kind: store.KindPlan, Body: body, ReceivedAt: time.Now()})
			results <- result{time.Since(start), err}
		}()
	}
	for range cap(results) {
		r := <-results
		// The right answer comes after about one busy timeout; the old
		// behaviour took up to nine. Four is far from both.
		if !errors.Is(r.err, store.ErrBusy) || r.took > 4*busy {
			t.Errorf("put under a lock: %v after %v; want ErrBusy within about %v", r.err, r.took.Round(time.Millisecond), busy)
		}
	}
	// The batches waited less than the whole timeout; the writer
	// connection is back to it, for the token writes and the health probe.
	var ms int64
	if err := s.w.QueryRow("PRAGMA busy_timeout").Scan(&ms); err != nil || ms != busy.Milliseconds() {
		t.Errorf("writer busy_timeout after the failed puts = %d ms, %v; want %d", ms, err, busy.Milliseconds())
	}
	release()
	body := []byte(`{"after":1}`)
	if created, err := s.PutDocument(context.Background(), &store.Document{ID: store.DocumentID(body), Kind: store.KindPlan, Body: body}); err != nil || !created {
		t.Fatalf("put after the lock is gone: %v, %v; want created", created, err)
	}
}

// The health probe's write meets the lock as an upload would: ErrBusy
// within the busy timeout; once the lock is gone it commits.
func TestProbeWriteUnderAnExternalLock(t *testing.T) {
	const busy = 200 * time.Millisecond
	path := filepath.Join(t.TempDir(), "g.db")
	s, err := OpenWith(path, Options{BusyTimeout: busy})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	if err := s.ProbeWrite(ctx); err != nil {
		t.Fatalf("ProbeWrite: %v", err)
	}
	release := sqlitelock.Hold(t, path)
	if err := s.ProbeWrite(ctx); !errors.Is(err, store.ErrBusy) {
		t.Fatalf("ProbeWrite under a lock: %v; want ErrBusy", err)
	}
	// Reads go on beside the lock (WAL): Ping does not see it.
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("Ping under a write lock: %v; want nil (reads are not blocked)", err)
	}
	release()
	if err := s.ProbeWrite(ctx); err != nil {
		t.Fatalf("ProbeWrite after the lock: %v", err)
	}
}

func TestBusyTimeoutOption(t *testing.T) {
	dir := t.TempDir()
	for _, bad := range []time.Duration{-time.Second, time.Microsecond, 2 * MaxBusyTimeout} {
		if s, err := OpenWith(filepath.Join(dir, "g.db"), Options{BusyTimeout: bad}); err == nil {
			s.Close()
			t.Errorf("OpenWith(BusyTimeout %v) succeeded; want an error", bad)
		}
	}
	s, err := OpenWith(filepath.Join(dir, "g.db"), Options{BusyTimeout: 1500 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var ms int
	if err := s.r.QueryRow("PRAGMA busy_timeout").Scan(&ms); err != nil || ms != 1500 {
		t.Errorf("readers' busy_timeout = %d, %v; want 1500", ms, err)
	}
}
