package postgres

import (
	"context"
	"testing"

	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/storetest"
)

func TestConformance(t *testing.T) {
	if server == nil {
		t.Skip("no PostgreSQL")
	}
	storetest.Run(t, func() store.Store {
		url, err := server.NewDatabase(context.Background())
		if err != nil {
			panic(err) // open runs in the subtest: t.Fatal belongs to its goroutine
		}
		s, err := Open(context.Background(), url)
		if err != nil {
			panic(err)
		}
		return s
	})
}
