package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/schema"
)

// Group commit: with synchronous=FULL every commit costs an fsync (about a
// millisecond here), which bounds one-at-a-time puts near a thousand a
// second however many uploads arrive at once. So documents go to one
// writer goroutine, which inserts every put waiting at that moment (up to
// maxBatch) in one transaction and answers each only after that commit: the
// same durability per upload, one fsync for many.

// Locks held elsewhere: a put waits at most the busy timeout in all, for
// the writer and for the database's write lock, then fails with
// store.ErrBusy (the server answers 503 with Retry-After). Each batch waits
// for the lock only until its first put's deadline, and a batch that met
// the lock fails whole: the one-at-a-time retry of a failed batch is for a
// bad document, and would wait the busy timeout again for each.

// maxBatch bounds the documents committed together.
const maxBatch = 256

type putReq struct {
	d        *store.Document
	deadline time.Time // the put fails with ErrBusy rather than wait past it
	done     chan putRes
}

type putRes struct {
	created bool
	err     error
}

// errClosed answers puts made after Close.
var errClosed = errors.New("sqlite: store closed")

// startWriter starts the writer goroutine.
func (s *Store) startWriter() {
	s.puts = make(chan putReq)
	s.quit = make(chan struct{})
	s.writerDone = make(chan struct{})
	go s.writer()
}

// stopWriter stops the writer after the batch it is committing.
func (s *Store) stopWriter() {
	if s.quit != nil {
		s.closeOnce.Do(func() { close(s.quit) })
		<-s.writerDone
	}
}

// PutDocument stores d unless a document with its ID is stored; it returns
// after the transaction holding it has committed (synchronous=FULL: on disk).
func (s *Store) PutDocument(ctx context.Context, d *store.Document) (bool, error) {
	if err := store.CheckDocument(d); err != nil {
		return false, err
	}
	deadline := time.Now().Add(s.busy)
	if dl, ok := ctx.Deadline(); ok && dl.Before(deadline) {
		deadline = dl
	}
	req := putReq{d: d, deadline: deadline, done: make(chan putRes, 1)}
	select {
	case s.puts <- req: // the writer was idle
	default:
		wait := time.NewTimer(time.Until(deadline))
		defer wait.Stop()
		select {
		case s.puts <- req:
		case <-wait.C:
			return false, fmt.Errorf("sqlite: put document %s: the writer did not take it within the busy timeout (%v): %w", d.ID, s.busy, store.ErrBusy)
		case <-s.quit:
			return false, errClosed
		case <-ctx.Done():
			return false, ctx.Err()
		}
	}
	// Once handed over the put is committed or fails with its batch; its
	// answer is waited for even if ctx ends, so that "no answer" never
	// hides a stored document from a caller that goes on to retry.
	r := <-req.done
	return r.created, r.err
}

func (s *Store) writer() {
	defer close(s.writerDone)
	batch := make([]putReq, 0, maxBatch)
	for {
		select {
		case <-s.quit:
			return
		case r := <-s.puts:
			batch = append(batch[:0], r)
		}
	fill:
		for len(batch) < maxBatch {
			select {
			case r := <-s.puts:
				batch = append(batch, r)
			default:
				break fill
			}
		}
		s.commit(batch)
	}
}

// commit inserts the batch in one transaction and answers every request.
// Should the transaction fail, each document is tried alone, so that one
// bad document cannot fail the others; a lock held elsewhere fails them
// all at once.
func (s *Store) commit(batch []putReq) {
	defer s.waitUntil(batch)()
	created, err := s.insert(batch)
	if err == nil {
		for i, r := range batch {
			r.done <- putRes{created: created[i]}
		}
		return
	}
	if len(batch) == 1 || isBusy(err) {
		for _, r := range batch {
			r.done <- putRes{err: err}
		}
		return
	}
	var busy error
	for _, r := range batch {
		if busy != nil {
			r.done <- putRes{err: busy}
			continue
		}
		c, err := s.insert([]putReq{r})
		if isBusy(err) {
			busy = err
		}
		r.done <- putRes{created: len(c) == 1 && c[0], err: err}
	}
}

// waitUntil sets the writer connection's busy_timeout to the time left
// before the batch's first deadline, in steps of busyStep, when that is
// less than the whole timeout by a step or more, and returns what puts
// the whole timeout back (for the token writes and the health probe that
// share the connection). Under a steady load a put waits for the writer
// less than a step, and no statement is run.
func (s *Store) waitUntil(batch []putReq) (restore func()) {
	first := batch[0].deadline
	for _, r := range batch[1:] {
		if r.deadline.Before(first) {
			first = r.deadline
		}
	}
	full := s.busy.Milliseconds()
	ms := time.Until(first).Milliseconds()
	ms -= ms % busyStep.Milliseconds()
	ms = max(1, ms) // 0 would turn the wait off: one try
	if ms >= full-busyStep.Milliseconds() {
		return func() {}
	}
	s.setBusy(ms)
	return func() { s.setBusy(full) }
}

// setBusy sets the writer connection's busy_timeout in ms, unless it is so.
func (s *Store) setBusy(ms int64) {
	if ms == s.busyMS {
		return
	}
	if _, err := s.w.Exec(fmt.Sprintf("PRAGMA busy_timeout = %d", ms)); err == nil {
		s.busyMS = ms
	}
}

// busyStep is the granularity of a batch's busy_timeout.
const busyStep = 100 * time.Millisecond

func (s *Store) insert(batch []putReq) ([]bool, error) {
	ctx := context.Background() // a batch is not cut short by one caller's context
	if len(batch) == 1 {        // alone: one autocommit statement, no BEGIN and COMMIT round trips
		c, err := s.exec(ctx, s.stmts.putDoc, batch[0].d)
		return []bool{c}, err
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sqlite: put documents: %w", classify(err))
	}
	defer tx.Rollback()
	st := tx.StmtContext(ctx, s.stmts.putDoc)
	created := make([]bool, len(batch))
	for i, r := range batch {
		if created[i], err = s.exec(ctx, st, r.d); err != nil {
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		return nil, fmt.Errorf("sqlite: put documents: %w", classify(err))
	}
	return created, nil
}

// exec runs the insert of d and reports whether it added a row.
func (s *Store) exec(ctx context.Context, st *sql.Stmt, d *store.Document) (bool, error) {
	res, err := st.ExecContext(ctx, d.ID, d.Kind, d.Body, schema.Micros(d.ReceivedAt), d.TokenName,
		d.SignedBy, d.GPU, d.Provider, d.InstanceType, d.Region, d.MatchedOffering, d.Host, nullMicros(d.CreatedAt))
	if err != nil {
		return false, fmt.Errorf("sqlite: put document %s: %w", d.ID, classify(err))
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: put document %s: %w", d.ID, err)
	}
	return n == 1, nil
}
