package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/schema"
)

// TestListUsesIndexes asks SQLite how it runs each listing: by an index in
// the listing's order (no full scan, no sort in a temporary B-tree).
func TestListUsesIndexes(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		f     store.Filter
		index string
	}{
		{store.Filter{}, "documents_received"},
		{store.Filter{Kind: store.KindBench}, "documents_kind"},
		{store.Filter{GPU: "x"}, "documents_gpu"},
		{store.Filter{Provider: "x"}, "documents_provider"},
		{store.Filter{Region: "x"}, "documents_region"},
		{store.Filter{Host: "x"}, "documents_host"},
		{store.Filter{Since: time.Unix(1, 0)}, "documents_received"},
	} {
		q, args := schema.ListQuery(c.f, 10, true, func(int) string { return "?" })
		q = "EXPLAIN QUERY PLAN " + q
		rows, err := s.r.QueryContext(context.Background(), q, args...)
		if err != nil {
			t.Fatal(err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		p := strings.Join(plan, "; ")
		if !strings.Contains(p, "INDEX "+c.index) || strings.Contains(p, "TEMP B-TREE") {
			t.Errorf("%+v: plan %q; want index %s and no sort", c.f, p, c.index)
		}
	}
}
