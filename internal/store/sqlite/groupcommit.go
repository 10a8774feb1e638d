package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/schema"
)

// Group commit: with synchronous=FULL every commit costs an fsync (about a
// millisecond here), which bounds one-at-a-time puts near a thousand a
// second however many uploads arrive at once. So documents go to one
// writer goroutine, which inserts every put waiting at that moment (up to
// maxBatch) in one transaction and answers each only after that commit: the
// same durability per upload, one fsync for many.

// maxBatch bounds the documents committed together.
const maxBatch = 256

type putReq struct {
	d    *store.Document
	done chan putRes
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
	req := putReq{d: d, done: make(chan putRes, 1)}
	select {
	case s.puts <- req:
	case <-s.quit:
		return false, errClosed
	case <-ctx.Done():
		return false, ctx.Err()
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
// bad document cannot fail the others.
func (s *Store) commit(batch []putReq) {
	created, err := s.insert(batch)
	if err == nil {
		for i, r := range batch {
			r.done <- putRes{created: created[i]}
		}
		return
	}
	if len(batch) == 1 {
		batch[0].done <- putRes{err: err}
		return
	}
	for _, r := range batch {
		c, err := s.insert([]putReq{r})
		r.done <- putRes{created: len(c) == 1 && c[0], err: err}
	}
}

func (s *Store) insert(batch []putReq) ([]bool, error) {
	ctx := context.Background() // a batch is not cut short by one caller's context
	if len(batch) == 1 {        // alone: one autocommit statement, no BEGIN and COMMIT round trips
		c, err := s.exec(ctx, s.stmts.putDoc, batch[0].d)
		return []bool{c}, err
	}
	tx, err := s.w.BeginTx(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("sqlite: put documents: %w", err)
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
		return nil, fmt.Errorf("sqlite: put documents: %w", err)
	}
	return created, nil
}

// exec runs the insert of d and reports whether it added a row.
func (s *Store) exec(ctx context.Context, st *sql.Stmt, d *store.Document) (bool, error) {
	res, err := st.ExecContext(ctx, d.ID, d.Kind, d.Body, schema.Micros(d.ReceivedAt), d.TokenName,
		d.SignedBy, d.GPU, d.Provider, d.InstanceType, d.Region, d.MatchedOffering, d.Host, nullMicros(d.CreatedAt))
	if err != nil {
		return false, fmt.Errorf("sqlite: put document %s: %w", d.ID, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("sqlite: put document %s: %w", d.ID, err)
	}
	return n == 1, nil
}
