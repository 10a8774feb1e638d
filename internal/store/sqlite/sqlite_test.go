package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/gpuscout/gpuscout/internal/store"
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
