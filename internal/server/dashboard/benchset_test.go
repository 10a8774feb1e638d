package dashboard

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
)

// stored puts a document in the fixture's store, as the server does, and
// returns it with its body for Stored.
func stored(t *testing.T, st store.Store, kind string, body []byte, at time.Time) *store.Document {
	t.Helper()
	d := &store.Document{ID: store.DocumentID(body), Kind: kind, Body: body, ReceivedAt: at, TokenName: "ci"}
	if _, err := st.PutDocument(context.Background(), d); err != nil {
		t.Fatal(err)
	}
	return d
}

// Stored adds a bench report to the reports kept in memory: the
// leaderboard and price/performance show it, as a dashboard without a
// cache does, without reading the store; in the store's order too when
// reports share a time (the later stored first).
func TestStoredAddsTheReportWithoutReadingTheStore(t *testing.T) {
	f, cs, clk, h := cachedFixture(t, time.Hour)
	fresh := New(Config{Store: f.st, Catalog: h.d.Catalog, Now: clk.Now, CacheTTL: -1})
	get(t, f.h, "/leaderboard")
	get(t, f.h, "/priceperf")
	at := time.Date(2026, 11, 30, 23, 55, 0, 0, time.UTC)
	for i := range 4 {
		n := cs.reads.Load()
		d := stored(t, f.st, store.KindBench, newDoc(t, store.KindBench, i), at) // all at one time
		h.Stored(context.Background(), d, nil)
		for _, path := range []string{"/leaderboard", "/priceperf"} {
			_, got := get(t, f.h, path)
			if _, want := get(t, fresh, path); got != want {
				t.Errorf("GET %s after Stored %d: differs from a render without a cache", path, i)
			}
		}
		if got := cs.reads.Load() - n; got != 0 {
			t.Errorf("Stored %d and the pages after it: %d store reads, want 0", i, got)
		}
	}
}

// pausedStore holds a listing of bench reports, once taken, until
// released: a load that read the store before a report was stored.
type pausedStore struct {
	store.Store
	mu     sync.Mutex
	hold   chan struct{} // nil once taken
	listed chan struct{}
}

func (s *pausedStore) ListDocuments(ctx context.Context, f store.Filter, withBody bool) ([]store.Document, error) {
	docs, err := s.Store.ListDocuments(ctx, f, withBody)
	s.mu.Lock()
	hold, listed := s.hold, s.listed
	s.hold = nil
	s.mu.Unlock()
	if hold != nil && f.Kind == store.KindBench {
		close(listed)
		<-hold
	}
	return docs, err
}

// A report stored while the reports were being read from the store (a
// listing taken before it) is kept: the load is merged with what was
// added meanwhile, not put in its place.
func TestALoadKeepsReportsStoredMeanwhile(t *testing.T) {
	f := newFixture(t)
	hold := make(chan struct{})
	ps := &pausedStore{Store: f.st, hold: hold, listed: make(chan struct{})}
	clk := &clock{now: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)}
	h := New(Config{Store: ps, Catalog: mustCatalog(t), Now: clk.Now, CacheTTL: time.Hour})
	fresh := New(Config{Store: f.st, Catalog: h.d.Catalog, Now: clk.Now, CacheTTL: -1})
	first := make(chan string)
	go func() { _, b := get(t, h, "/leaderboard"); first <- b }() // loads, and is held
	<-ps.listed
	d := stored(t, f.st, store.KindBench, newDoc(t, store.KindBench, 1), time.Date(2026, 11, 30, 23, 55, 0, 0, time.UTC))
	done := make(chan struct{})
	go func() { h.Stored(context.Background(), d, nil); close(done) }()
	time.Sleep(10 * time.Millisecond) // let Stored add it, and wait on the load
	close(hold)
	<-first
	<-done
	_, got := get(t, h, "/leaderboard")
	if !strings.Contains(got, d.ID[:12]) {
		t.Fatalf("the report stored during the load is not on the leaderboard")
	}
	if _, want := get(t, fresh, "/leaderboard"); got != want {
		t.Errorf("the leaderboard after the load differs from a render without a cache")
	}
}

// A report stored through another replica (straight into the store) shows
// on the leaderboard once the TTL has passed: the reports kept in memory
// are read again with the page.
func TestLeaderboardSeesAnotherReplicasReportAfterTheTTL(t *testing.T) {
	f, _, clk, _ := cachedFixture(t, 2*time.Second)
	get(t, f.h, "/leaderboard")
	d := stored(t, f.st, store.KindBench, newDoc(t, store.KindBench, 7), time.Date(2026, 11, 30, 23, 55, 0, 0, time.UTC))
	clk.add(time.Second)
	if _, b := get(t, f.h, "/leaderboard"); strings.Contains(b, d.ID[:12]) {
		t.Fatalf("within the TTL: the other replica's report shows already (want the cached page)")
	}
	clk.add(time.Second + time.Millisecond)
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, b := get(t, f.h, "/leaderboard"); strings.Contains(b, d.ID[:12]) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("past the TTL: the other replica's report never showed")
		}
		time.Sleep(time.Millisecond)
	}
}

// A page built from the reports kept in memory is as old as they are: it
// expires a TTL after they were read from the store, not a TTL after its
// render, so that another replica's report shows within the TTL (plus a
// render) however late the page was first rendered.
func TestAPageExpiresWithTheReportsItWasBuiltFrom(t *testing.T) {
	f, _, clk, _ := cachedFixture(t, 2*time.Second)
	get(t, f.h, "/priceperf") // reads the reports from the store at 0 s
	clk.add(500 * time.Millisecond)
	d := stored(t, f.st, store.KindBench, newDoc(t, store.KindBench, 8), time.Date(2026, 11, 30, 23, 55, 0, 0, time.UTC)) // another replica's
	clk.add(time.Second)
	get(t, f.h, "/leaderboard")     // at 1.5 s, from the reports read at 0 s (or later: either is in time)
	clk.add(501 * time.Millisecond) // 2.001 s: the reports read at 0 s are past the TTL
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, b := get(t, f.h, "/leaderboard"); strings.Contains(b, d.ID[:12]) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("2 s after the reports were read: the other replica's report never showed (the page kept for 2 s after its render at 1.5 s)")
		}
		time.Sleep(time.Millisecond)
	}
}

// mergeBench keeps the store's order (newest first; of reports stored at
// one time, the later stored first), each report once, at most MaxLimit.
func TestMergeBench(t *testing.T) {
	at := func(min int) time.Time { return time.Date(2026, 12, 1, 0, min, 0, 0, time.UTC) }
	doc := func(id string, min int) *benchDoc {
		return &benchDoc{Document: store.Document{ID: id, ReceivedAt: at(min)}}
	}
	ids := func(ds []*benchDoc) string {
		var s []string
		for _, d := range ds {
			s = append(s, d.ID)
		}
		return strings.Join(s, " ")
	}
	base := []*benchDoc{doc("e", 5), doc("d", 4), doc("c", 4), doc("a", 1)}
	got, capped := mergeBench(base, []*benchDoc{doc("f", 6), doc("x", 4), doc("d", 4), doc("b", 2)}, false)
	if want := "f e x d c b a"; ids(got) != want || capped {
		t.Errorf("mergeBench = %q, capped %v; want %q, false", ids(got), capped, want)
	}
	if ids(base) != "e d c a" {
		t.Errorf("mergeBench changed its argument: %q", ids(base))
	}
	var many []*benchDoc
	for i := range store.MaxLimit {
		many = append(many, doc(fmt.Sprint(i), 30))
	}
	got, capped = mergeBench(many, []*benchDoc{doc("new", 31)}, false)
	if len(got) != store.MaxLimit || got[0].ID != "new" || !capped {
		t.Errorf("merging one more than MaxLimit: %d reports, first %s, capped %v; want %d, new, true", len(got), got[0].ID, capped, store.MaxLimit)
	}
}
