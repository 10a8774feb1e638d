package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/schema"
	"github.com/gpuscout/gpuscout/internal/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func() store.Store {
		s, err := Open(filepath.Join(t.TempDir(), "gpuscout.db"))
		if err != nil {
			panic(err) // open runs in the subtest: t.Fatal belongs to its goroutine
		}
		return s
	})
}

// A listing of a kind (every dashboard list: the leaderboard's 1000 bench
// reports, the plans, the agents) is answered from the kind index alone:
// reading a row's columns after its body would walk the body's overflow
// pages (a 100 KiB plan is about 25 of them).
func TestListByKindReadsNoBody(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	q, args := schema.ListQuery(store.Filter{Kind: store.KindBench}, store.MaxLimit, false, func(int) string { return "?" })
	rows, err := s.r.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if got := strings.Join(plan, "; "); !strings.Contains(got, "COVERING INDEX") {
		t.Errorf("listing by kind: plan %q, want a covering index (no table read)", got)
	}
}
