package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/gpuscout/gpuscout/internal/store"
)

func req(body string, kind string) putReq {
	b := []byte(body)
	return putReq{d: &store.Document{ID: store.DocumentID(b), Kind: kind, Body: b}, done: make(chan putRes, 1)}
}

func TestGroupCommitBatch(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// One batch: a document, the same again, a row the database refuses
	// (its kind breaks the CHECK; PutDocument would have refused it
	// earlier), and another document. The bad one fails alone.
	a, dupA, bad, b := req(`{"a":1}`, store.KindBench), req(`{"a":1}`, store.KindBench),
		req(`{"bad":1}`, "nonsense"), req(`{"b":1}`, store.KindPlan)
	s.commit([]putReq{a, dupA, bad, b})
	for _, c := range []struct {
		name    string
		r       putReq
		created bool
		fails   bool
	}{{"a", a, true, false}, {"a again", dupA, false, false}, {"bad", bad, false, true}, {"b", b, true, false}} {
		got := <-c.r.done
		if got.created != c.created || (got.err != nil) != c.fails {
			t.Errorf("%s: created %v, err %v; want created %v, failing %v", c.name, got.created, got.err, c.created, c.fails)
		}
	}
	list, err := s.ListDocuments(context.Background(), store.Filter{}, false)
	if err != nil || len(list) != 2 {
		t.Errorf("stored %d documents, %v; want 2 (a and b)", len(list), err)
	}
}

func TestPutAfterClose(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	r := req(`{"late":1}`, store.KindBench)
	if _, err := s.PutDocument(context.Background(), r.d); !errors.Is(err, errClosed) {
		t.Errorf("PutDocument after Close: %v; want %v", err, errClosed)
	}
	s.stopWriter() // a second stop does not panic or block
}

func TestPutCancelledContext(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := req(`{"c":1}`, store.KindBench)
	// Cancelled before the hand-over: it may be refused, or stored if the
	// writer was already waiting; either way the answer tells the truth.
	created, err := s.PutDocument(ctx, r.d)
	_, getErr := s.GetDocument(context.Background(), r.d.ID)
	if created != (getErr == nil) || (err == nil) != created {
		t.Errorf("cancelled put: created %v, err %v, then get %v; the answer and the store disagree", created, err, getErr)
	}
}
