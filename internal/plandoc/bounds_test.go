package plandoc_test

import (
	"testing"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/plandoc"
)

// The plan's bounds are advise's bounds of a request: a plan advise writes
// is never refused for a value advise allows.
func TestBoundsAreAdvises(t *testing.T) {
	for _, c := range []struct {
		name          string
		plan, advised float64
	}{
		{"MaxHorizonMonths", plandoc.MaxHorizonMonths, advise.MaxHorizonMonths},
		{"MaxGPUs", plandoc.MaxGPUs, advise.MaxGPUs},
		{"MaxWorkGPUHours", plandoc.MaxWorkGPUHours, advise.MaxWorkGPUHours},
		{"MaxDeadlineHours", plandoc.MaxDeadlineHours, advise.MaxDeadlineHours},
		{"MaxInstances ≥ MaxNodes", max(plandoc.MaxInstances, advise.MaxNodes), plandoc.MaxInstances},
	} {
		if c.plan != c.advised {
			t.Errorf("%s: plandoc %g, advise %g", c.name, c.plan, c.advised)
		}
	}
}
