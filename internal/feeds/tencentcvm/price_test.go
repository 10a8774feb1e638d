package tencentcvm

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

func nd(s string) decimal.NullDecimal {
	if s == "" {
		return decimal.NullDecimal{}
	}
	return decimal.NullDecimal{Decimal: decimal.RequireFromString(s), Valid: true}
}

// TestPaidDiscountIsPercentPaid: Discount 80 means paying 80% of the
// original price, not 80% off.
func TestPaidDiscountIsPercentPaid(t *testing.T) {
	tests := []struct {
		name                          string
		discounted, original, percent string
		want                          string // "" = no price
		wantErr                       string
	}{
		{name: "80 = pay 80% (not 20%)", original: "100", percent: "80", want: "80"},
		{name: "20 = 2折, pay a fifth", original: "8884.5", percent: "20", want: "1776.9"},
		{name: "100 = no discount", original: "16.09", percent: "100", want: "16.09"},
		{name: "the discounted price wins where given", discounted: "3.33", original: "16.09", percent: "21", want: "3.33"},
		// The documented examples: 1804.9 of 8884.5 is 20.3% with Discount 20; 0.08 of 0.2 is exactly 40.
		{name: "documented prepaid example", discounted: "1804.9", original: "8884.5", percent: "20", want: "1804.9"},
		{name: "documented simplest example", discounted: "0.08", original: "0.2", percent: "40", want: "0.08"},
		{name: "Discount 0 = not given", discounted: "3.33", original: "16.09", percent: "0", want: "3.33"},
		{name: "only an original price and no discount: unknown", original: "16.09", want: ""},
		{name: "zeros everywhere: unknown", discounted: "0", original: "0", percent: "0", want: ""},
		{name: "nothing: unknown", want: ""},
		{name: "read as percent off it contradicts", discounted: "80", original: "100", percent: "20", wantErr: "80% of original 100, but Discount says 20% paid"},
		{name: "negative", discounted: "-1", wantErr: "negative discounted price"},
		{name: "discount above 100", original: "10", percent: "120", wantErr: "above 100"},
		// 1e-40000000 decodes at once; multiplying it took 33 s before the range check.
		{name: "huge exponent", original: "1e40000000", percent: "1e-40000000", wantErr: "original price out of range"},
		{name: "a trillion yuan", discounted: "1000000000001", wantErr: "above 1000000000000"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok, err := paid(nd(tc.discounted), nd(tc.original), nd(tc.percent))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one saying %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				if ok {
					t.Errorf("got %s, want no price", got)
				}
				return
			}
			if !ok || !got.Equal(decimal.RequireFromString(tc.want)) {
				t.Errorf("paid = %s (ok %v), want %s", got, ok, tc.want)
			}
		})
	}
}

func TestHourlyWantsHours(t *testing.T) {
	p := ItemPrice{UnitPrice: nd("0.8"), UnitPriceDiscount: nd("0.52"), ChargeUnit: "GB"}
	if _, _, err := p.Hourly(); err == nil || !strings.Contains(err.Error(), `"GB"`) {
		t.Errorf("a price per GB read as hourly: err = %v", err)
	}
	p.ChargeUnit = "HOUR"
	if got, ok, err := p.Hourly(); err != nil || !ok || !got.Equal(decimal.RequireFromString("0.52")) {
		t.Errorf("Hourly = %s, %v, %v; want 0.52", got, ok, err)
	}
}

func TestPrepaidYears(t *testing.T) {
	// The documented DescribeZoneInstanceConfigInfos example: 708 a year, 587.64 paid (83%).
	p := ItemPrice{OriginalPriceOneYear: nd("708"), DiscountPriceOneYear: nd("587.64"), DiscountOneYear: nd("0"),
		OriginalPriceThreeYear: nd("0"), DiscountPriceThreeYear: nd("0")}
	if got, ok, err := p.PrepaidYears(1); err != nil || !ok || !got.Equal(decimal.RequireFromString("587.64")) {
		t.Errorf("1y = %s, %v, %v; want 587.64", got, ok, err)
	}
	if got, ok, err := p.PrepaidYears(3); err != nil || ok {
		t.Errorf("3y = %s, %v, %v; want no price (zeros)", got, ok, err)
	}
	if _, _, err := p.PrepaidYears(5); err == nil {
		t.Error("5 years: want an error")
	}
}
