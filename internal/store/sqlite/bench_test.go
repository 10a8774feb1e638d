package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/gpuscout/gpuscout/internal/store"
	"github.com/gpuscout/gpuscout/internal/store/storetest"
)

func BenchmarkPutDocument(b *testing.B) {
	storetest.BenchPut(b, func() store.Store {
		s, err := Open(filepath.Join(b.TempDir(), "bench.db"))
		if err != nil {
			b.Fatal(err)
		}
		return s
	})
}
