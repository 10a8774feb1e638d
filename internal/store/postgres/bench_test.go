package postgres

import (
	"context"
	"testing"

	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/storetest"
)

// BenchmarkPutDocument runs on a durable server (fsync on; see TestMain).
func BenchmarkPutDocument(b *testing.B) {
	url := newDB(b)
	storetest.BenchPut(b, func() store.Store {
		s, err := Open(context.Background(), url)
		if err != nil {
			b.Fatal(err)
		}
		return s
	})
}
