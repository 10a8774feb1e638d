package dashboard

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/store"
)

// benchSet is the newest store.MaxLimit bench reports, decoded, in the
// store's order (newest first: received_at, then the later stored first),
// which the leaderboard and price/performance are built from without
// reading the store. It is kept in step two ways:
//   - an upload through this server adds its report (Handler.Stored)
//     before the upload is answered: no store read;
//   - it is read again from the store (its listing, and the bodies of the
//     reports it lacks, in one query) when it is older than the page
//     cache's TTL (writes through another server replica) or was marked
//     stale (Handler.InvalidateKind: a write it was not given), or forgotten
//     (Handler.Invalidate). A load is merged with what the set holds:
//     reports added while it ran are kept (the store never changes nor
//     deletes a document, so the union is never wrong; one deleted from the
//     database by hand stays until Invalidate), and the newest MaxLimit
//     kept.
//
// The slice handed out is never changed: an add or a load replaces it.
type benchSet struct {
	mu     sync.Mutex
	docs   []*benchDoc
	ids    map[string]bool // of docs
	capped bool            // the store holds older reports than docs'
	// marks counts markStale's calls; loaded is its value when the last
	// load began, and synced that load's start: the set holds every
	// report stored before then, and every one added since.
	marks, loaded uint64
	synced        time.Time // zero: never loaded
	loads         singleflight.Group
}

// markStale says a bench report may have been stored that the set was not
// given: the next use reads the store.
func (s *benchSet) markStale() {
	s.mu.Lock()
	s.marks++
	s.mu.Unlock()
}

// reset forgets the set: the next use reads it whole from the store (a
// report deleted from the database by hand is gone then).
func (s *benchSet) reset() {
	s.mu.Lock()
	s.docs, s.ids, s.capped = nil, nil, false
	s.marks++
	s.mu.Unlock()
}

// addBench adds a newly stored bench report (with its body) to the set;
// rep is its body decoded (nil: decoded here). One that does not decode
// marks the set stale instead (a load will leave it out, logged).
func (d *dash) addBench(doc *store.Document, rep *benchreport.Document) {
	if d.store.ttl < 0 {
		return
	}
	if rep == nil {
		var err error
		if rep, err = benchreport.DecodeDocument(bytes.NewReader(doc.Body)); err != nil {
			d.bench.markStale()
			return
		}
	}
	bd := &benchDoc{Document: *doc, Report: rep}
	bd.Body = nil // as a listing has it
	// As the store keeps them.
	bd.ReceivedAt = bd.ReceivedAt.UTC().Truncate(store.TimePrecision)
	if !bd.CreatedAt.IsZero() {
		bd.CreatedAt = bd.CreatedAt.UTC().Truncate(store.TimePrecision)
	}
	s := &d.bench
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ids[bd.ID] {
		return
	}
	// Before the reports received at the same time: it was stored after
	// them (the store's order).
	i, _ := slices.BinarySearchFunc(s.docs, bd.ReceivedAt, func(doc *benchDoc, t time.Time) int { return t.Compare(doc.ReceivedAt) })
	docs := make([]*benchDoc, 0, len(s.docs)+1)
	docs = append(append(append(docs, s.docs[:i]...), bd), s.docs[i:]...)
	if s.ids == nil {
		s.ids = map[string]bool{}
	}
	s.ids[bd.ID] = true
	if len(docs) > store.MaxLimit {
		for _, old := range docs[store.MaxLimit:] {
			delete(s.ids, old.ID)
		}
		docs, s.capped = docs[:store.MaxLimit:store.MaxLimit], true
	}
	s.docs = docs
}

// index rebuilds ids from docs (under mu).
func (s *benchSet) index() {
	s.ids = make(map[string]bool, len(s.docs))
	for _, doc := range s.docs {
		s.ids[doc.ID] = true
	}
}

// mergeBench returns base with the reports of added that it lacks, newest
// first, at most store.MaxLimit (capped when some were left out, or
// already). A report of added goes before the reports of base received at
// the same time: it was stored after them. Neither slice is changed.
func mergeBench(base, added []*benchDoc, capped bool) ([]*benchDoc, bool) {
	in := make(map[string]bool, len(base))
	for _, doc := range base {
		in[doc.ID] = true
	}
	out := make([]*benchDoc, 0, min(len(base)+len(added), store.MaxLimit))
	i := 0
	for _, a := range added {
		if in[a.ID] {
			continue
		}
		for i < len(base) && base[i].ReceivedAt.After(a.ReceivedAt) {
			out = append(out, base[i])
			i++
		}
		out = append(out, a)
	}
	out = append(out, base[i:]...)
	if len(out) > store.MaxLimit {
		out, capped = out[:store.MaxLimit], true
	}
	return out, capped
}

// benchDocs returns the newest stored bench reports (at most
// store.MaxLimit), decoded, and whether the store holds older ones, left
// out: from the set, when it is in step (see benchSet), else from the
// store (always with the cache off). The slice must not be changed.
func (d *dash) benchDocs(ctx context.Context) ([]*benchDoc, bool, error) {
	if d.store.ttl < 0 {
		return d.loadBenchDocs(ctx, nil)
	}
	s := &d.bench
	s.mu.Lock()
	need := s.marks
	s.mu.Unlock()
	// A load joined may have begun before this call; the next one begins
	// after: two suffice.
	for range 2 {
		s.mu.Lock()
		if !s.synced.IsZero() && s.loaded >= need && d.Now().Before(s.synced.Add(d.store.ttl)) {
			docs, capped, synced := s.docs, s.capped, s.synced
			s.mu.Unlock()
			if asOf, ok := ctx.Value(asOfKey{}).(*time.Time); ok && (asOf.IsZero() || synced.Before(*asOf)) {
				*asOf = synced
			}
			return docs, capped, nil
		}
		s.mu.Unlock()
		if _, err, _ := s.loads.Do("", func() (any, error) { return nil, d.syncBench(ctx) }); err != nil {
			return nil, false, err
		}
	}
	if err := d.syncBench(ctx); err != nil {
		return nil, false, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.docs, s.capped, nil
}

// syncBench reads the set from the store and merges it with what the set
// holds.
func (d *dash) syncBench(ctx context.Context) error {
	s := &d.bench
	s.mu.Lock()
	mark, start, held := s.marks, d.Now(), s.docs
	s.mu.Unlock()
	known := make(map[string]*benchreport.Document, len(held))
	for _, doc := range held {
		known[doc.ID] = doc.Report
	}
	docs, capped, err := d.loadBenchDocs(ctx, known)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// What was added while the store was read is kept.
	s.docs, s.capped = mergeBench(docs, s.docs, capped)
	s.index()
	s.loaded, s.synced = max(s.loaded, mark), start
	return nil
}
