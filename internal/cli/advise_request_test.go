package cli

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/advise"
	"github.com/gpuscout/gpuscout/internal/catalog"
)

// Validate checks and never changes the request; Defaults is the explicit
// step that fills unset fields.
func TestAdviseRequestValidateDoesNotMutate(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	scs, _ := advise.LoadScenarios()
	sc, _ := scs.Get("inference-online")
	req := advise.Request{Scenario: sc, Ref: c.GPU("L4"), HoursPerMonth: 730, Budget: decimal.NullDecimal{Decimal: decimal.NewFromInt(5), Valid: true}}
	before := req
	if err := req.Validate(); err == nil || !strings.Contains(err.Error(), "--gpu L4:0") {
		t.Errorf("unset count: got %v, want the --gpu count named", err)
	}
	if req.RefCount != before.RefCount || req.MaxNodes != before.MaxNodes || req.HorizonMonths != before.HorizonMonths || req.Objective != before.Objective {
		t.Errorf("Validate changed the request: %+v", req)
	}
	req.Defaults()
	if err := req.Validate(); err != nil {
		t.Errorf("after Defaults: %v", err)
	}
	if req.RefCount != 1 || req.MaxNodes != advise.DefaultMaxNodes || req.HorizonMonths != advise.DefaultHorizon || req.Objective != advise.ObjectiveCost {
		t.Errorf("Defaults: %+v", req)
	}
}
