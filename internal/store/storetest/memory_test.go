package storetest

import (
	"testing"

	"github.com/gpuscout/gpuscout/internal/store"
)

func TestMemory(t *testing.T) {
	Run(t, func() store.Store { return Memory() })
}
