package cost

import (
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// TestMoveCost: a move's transfer against the egress table's rows by hand
// (egress.yaml, AWS "US, Canada, EU": cross-zone 0.01 USD/GB billed out and
// in, cross-region 0.02 USD/GB), in another currency through the FX table,
// and an error, never zero, where no table covers the region.
func TestMoveCost(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	fx := money.DefaultFX()
	for _, tc := range []struct {
		from  string
		cross bool
		gb    float64
		want  string
		path  string
	}{
		{"us-west-2", true, 50, "1", catalog.PathCrossRegion}, // 50 × 0.02
		{"us-east-1", false, 50, "1", catalog.PathCrossZone},  // 50 × 0.01 × 2
		{"eu-west-1", true, 0.3584, "0.007168", catalog.PathCrossRegion},
	} {
		m, err := MoveCost(c, fx, "aws", tc.from, tc.cross, tc.gb, money.USD)
		if err != nil {
			t.Fatalf("%s: %v", tc.from, err)
		}
		if m.Amount.String() != tc.want || m.Path != tc.path {
			t.Errorf("%s cross=%v %g GB: got %s on %s, want %s on %s", tc.from, tc.cross, tc.gb, m.Amount, m.Path, tc.want, tc.path)
		}
		if !strings.Contains(m.Describe(), "infracost-aws-transfer") {
			t.Errorf("%s: %q names no source", tc.from, m.Describe())
		}
	}
	usd, _ := MoveCost(c, fx, "aws", "us-west-2", true, 50, money.USD)
	cny, err := MoveCost(c, fx, "aws", "us-west-2", true, 50, money.CNY)
	if err != nil {
		t.Fatal(err)
	}
	back, err := fx.Convert(cny.Amount, money.CNY, money.USD)
	if err != nil || back.Sub(usd.Amount).Abs().GreaterThan(usd.Amount.Shift(-6)) {
		t.Errorf("CNY %s converts back to %s USD, want %s (%v)", cny.Amount, back, usd.Amount, err)
	}
	if m, err := MoveCost(c, fx, "aws", "cn-north-1", true, 50, money.USD); err == nil {
		t.Errorf("cn-north-1 has no sourced table, got %s", m.Amount)
	}
}
