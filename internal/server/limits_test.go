package server

import (
	"fmt"
	"testing"
	"time"
)

// At the bound, the limiter forgets refilled buckets and keeps the empty
// ones: a client over its rate stays limited.
func TestLimiterEvictsOnlyRefilled(t *testing.T) {
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	l := newLimiter(1, func() time.Time { return now })
	for range 10 {
		l.allow("busy")
	}
	if ok, _ := l.allow("busy"); ok {
		t.Fatal("busy: want limited after its burst of 10")
	}
	for i := range maxBuckets - 1 {
		l.buckets[fmt.Sprint("idle", i)] = &bucket{tokens: 10, at: now.Add(-time.Hour)}
	}
	l.allow("new") // at the bound: evicts
	if len(l.buckets) != 2 {
		t.Fatalf("buckets after eviction: got %d, want 2 (busy, new)", len(l.buckets))
	}
	if ok, _ := l.allow("busy"); ok {
		t.Fatal("busy: want still limited after the eviction")
	}
}
