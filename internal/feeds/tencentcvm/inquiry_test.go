package tencentcvm

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// TestInquiryDocumentedExamples: the documented answers (S5, not a GPU
// type) are left out, each with its reason; their prices read as the
// examples state them, Discount as percent paid.
func TestInquiryDocumentedExamples(t *testing.T) {
	res := parseFile(t, FormatInquiry, "testdata/inquiry-documented.json", "ap-shanghai")
	if len(res.Offerings)+len(res.Commitments) != 0 {
		t.Errorf("records from S5 examples: %+v", res)
	}
	want := []string{"names no InstanceType", "not a GPU instance type (family S5)", "not a GPU instance type (family S5)"}
	if len(res.LeftOut) != len(want) {
		t.Fatalf("left out %v, want %d", res.LeftOut, len(want))
	}
	for i, w := range want {
		if !strings.Contains(res.LeftOut[i].Reason, w) {
			t.Errorf("left out %d: %s, want %q", i, res.LeftOut[i], w)
		}
	}

	raw, err := os.ReadFile("testdata/inquiry-documented.json")
	if err != nil {
		t.Fatal(err)
	}
	var pairs []struct {
		Response struct{ Response InquiryAnswer }
	}
	if err := json.Unmarshal(raw, &pairs); err != nil {
		t.Fatal(err)
	}
	p := func(i int) ItemPrice { return pairs[i].Response.Response.Price.InstancePrice }
	// Example 1: 0.2 original, 40% paid → 0.08, the discounted price stated.
	if v, ok, err := p(0).Hourly(); err != nil || !ok || !v.Equal(dec("0.08")) {
		t.Errorf("example 1 hourly = %s %v %v, want 0.08", v, ok, err)
	}
	// Example 2: prepaid 8884.5 original, Discount 20 (paid, not off), 1804.9 paid.
	if v, ok, err := p(1).Prepaid(); err != nil || !ok || !v.Equal(dec("1804.9")) {
		t.Errorf("example 2 prepaid = %s %v %v, want 1804.9", v, ok, err)
	}
	// Example 3: 16.09 original, Discount 21, 3.33 paid.
	if v, ok, err := p(2).Hourly(); err != nil || !ok || !v.Equal(dec("3.33")) {
		t.Errorf("example 3 hourly = %s %v %v, want 3.33", v, ok, err)
	}
	// Without its discounted price, example 2 is 8884.5 × 20% = 1776.9 (percent off would give 7107.6).
	q := p(1)
	q.DiscountPrice.Valid = false
	if v, _, _ := q.Prepaid(); !v.Equal(dec("1776.9")) {
		t.Errorf("8884.5 at Discount 20 = %s, want 1776.9", v)
	}
}

// TestInquiryGPU: GPU requests become an on-demand or spot price of the
// zone's offering, or a prepaid commitment of the period's term.
func TestInquiryGPU(t *testing.T) {
	pair := func(charge, period, price string) string {
		req := `{"Placement":{"Zone":"ap-shanghai-2"},"InstanceType":"GN7.2XLARGE32","InstanceChargeType":"` + charge + `"`
		if period != "" {
			req += `,"InstanceChargePrepaid":{"Period":` + period + `}`
		}
		return `{"Request":` + req + `},"Response":{"Price":{"InstancePrice":` + price + `},"RequestId":"r"}}`
	}
	body := strings.Join([]string{
		pair("POSTPAID_BY_HOUR", "", `{"UnitPrice":10,"UnitPriceDiscount":6,"Discount":60,"ChargeUnit":"HOUR"}`),
		pair("SPOTPAID", "", `{"UnitPrice":10,"Discount":20,"ChargeUnit":"HOUR"}`),
		pair("PREPAID", "12", `{"OriginalPrice":50000,"DiscountPrice":41500,"Discount":83}`),
		pair("PREPAID", "36", `{"OriginalPrice":150000,"Discount":50}`),
		pair("PREPAID", "6", `{"OriginalPrice":30000,"DiscountPrice":27000}`),
		`{"Request":{"Placement":{"Zone":"ap-shanghai-2"},"InstanceType":"GN7.5XLARGE80"},"Response":{"Response":{"Error":{"Code":"ResourceInsufficient","Message":"sold out"},"RequestId":"r2"}}}`,
	}, "\n")
	res, err := New().Parse(FormatInquiry, strings.NewReader(body), feeds.ParseOptions{Source: "test@2026-11-30", AsOf: "2026-11-30", Origin: "f"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offerings) != 1 {
		t.Fatalf("offerings %+v, want one", res.Offerings)
	}
	o := res.Offerings[0]
	if o.Region != "ap-shanghai" || o.Zone != "ap-shanghai-2" {
		t.Errorf("offering in %s %s, want ap-shanghai ap-shanghai-2", o.Region, o.Zone)
	}
	checkPrice(t, "on-demand", o.OnDemand, "6")
	checkPrice(t, "spot", o.Spot, "2") // 10 × 20% paid
	wantC := map[string]string{"1y": "41500", "3y": "75000"}
	if len(res.Commitments) != 2 {
		t.Fatalf("commitments %+v, want 1y and 3y", res.Commitments)
	}
	for _, c := range res.Commitments {
		if !c.Upfront.Equal(dec(wantC[c.Term])) || c.Payment != "all-upfront" {
			t.Errorf("%s commitment %s %s, want %s all-upfront", c.Term, c.Upfront, c.Payment, wantC[c.Term])
		}
	}
	if len(res.LeftOut) != 2 || !strings.Contains(res.LeftOut[0].Reason, "period 6 months") || !strings.Contains(res.LeftOut[1].Reason, "ResourceInsufficient: sold out") {
		t.Errorf("left out %v, want the 6-month period and the error answer", res.LeftOut)
	}
}

func TestInquiryBadFiles(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"answer alone", `{"Response":{"Price":{"InstancePrice":{"UnitPrice":1}}}}`, "an answer alone does not say"},
		{"empty", ``, "no inquiry in the file"},
		{"malformed", `{"Request":{}, "Response": [}`, "malformed"},
		{"request of the wrong type", `{"Request":"GN7","Response":{}}`, "malformed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New().Parse(FormatInquiry, strings.NewReader(tc.body), feeds.ParseOptions{Source: "s", AsOf: "2026-11-30"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}
