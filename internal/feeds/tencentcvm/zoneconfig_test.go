package tencentcvm

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

func parseFile(t *testing.T, format, path, region string) *feeds.Result {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	res, err := New().Parse(format, fh, feeds.ParseOptions{Source: "test@2026-11-30", AsOf: "2026-11-30", Origin: "f", Region: region})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func dec(s string) decimal.Decimal { return decimal.RequireFromString(s) }

// TestZoneConfigSynthetic reads the synthetic answer (testdata/SOURCE.md):
// every price below is the fixture's round numbers worked by hand.
func TestZoneConfigSynthetic(t *testing.T) {
	res := parseFile(t, FormatZoneConfig, "testdata/zoneconfig-gpu-synthetic.json", "ap-guangzhou")
	type off struct{ zone, typ, onDemand, spot string }
	want := []off{
		{"ap-guangzhou-3", "GN7.2XLARGE32", "8.5", ""}, // the discounted price, no Discount given
		{"ap-guangzhou-3", "GT4.41XLARGE948", "80", "20"},
		{"ap-guangzhou-4", "GT4.41XLARGE948", "80", ""}, // 100 × 80% paid: no discounted price given
	}
	if len(res.Offerings) != len(want) {
		t.Fatalf("%d offerings, want %d: %+v", len(res.Offerings), len(want), res.Offerings)
	}
	for i, w := range want {
		o := res.Offerings[i]
		if o.Zone != w.zone || o.InstanceType != w.typ || o.Region != "ap-guangzhou" || o.Provider != "tencent" {
			t.Errorf("offering %d = %s %s %s %s, want tencent %s %s ap-guangzhou", i, o.Provider, o.InstanceType, o.Region, o.Zone, w.typ, w.zone)
		}
		checkPrice(t, o.InstanceType+" "+o.Zone+" on-demand", o.OnDemand, w.onDemand)
		checkPrice(t, o.InstanceType+" "+o.Zone+" spot", o.Spot, w.spot)
	}
	gt4 := res.Offerings[1]
	if gt4.GPUCount != 8 || gt4.VCPUs != 164 || gt4.MemoryGiB != 948 || gt4.NetworkGbps != 50 || gt4.SpecSource != "test@2026-11-30" {
		t.Errorf("GT4 machine = %+v, want 8 GPUs, 164 vCPUs, 948 GiB, 50 Gbps from the answer", gt4.Machine)
	}
	if res.Offerings[0].GPUCount != 1 {
		t.Errorf("GN7.2XLARGE32 GPUs = %v, want 1 (from Gpu: the row has no GpuCount)", res.Offerings[0].GPUCount)
	}

	// Prepaid: zone 3's month 40000, year 480000, three years 1800000 × 50% = 900000.
	wantC := map[string]string{"1mo": "40000", "1y": "480000", "3y": "900000"}
	if len(res.Commitments) != len(wantC) {
		t.Fatalf("%d commitments, want %d: %+v", len(res.Commitments), len(wantC), res.Commitments)
	}
	for _, c := range res.Commitments {
		if w := wantC[c.Term]; !c.Upfront.Equal(dec(w)) || c.Model != "subscription" || c.Payment != "all-upfront" ||
			c.Currency != "CNY" || c.Region != "ap-guangzhou" || c.InstanceType != "GT4.41XLARGE948" || !c.Hourly.IsZero() || !c.Monthly.IsZero() {
			t.Errorf("commitment %+v, want subscription %s all-upfront %s CNY", c, c.Term, w)
		}
	}

	wantLeft := map[string]string{
		"f#4":  "differs from zone ap-guangzhou-3's 40000",
		"f#6":  "not a GPU instance type",
		"f#7":  "negative original price -3",
		"f#8":  `charge unit "MONTH"; want HOUR`,
		"f#9":  "80% of original 100, but Discount says 20% paid",
		"f#10": "charge type CDHPAID",
		"f#11": "no hourly price in the row",
	}
	if len(res.LeftOut) != len(wantLeft) {
		t.Errorf("%d left out, want %d: %v", len(res.LeftOut), len(wantLeft), res.LeftOut)
	}
	for _, l := range res.LeftOut {
		if w, ok := wantLeft[l.Origin]; !ok || !strings.Contains(l.Reason, w) {
			t.Errorf("left out %s, want reason containing %q", l, w)
		}
	}
}

func checkPrice(t *testing.T, what string, p feeds.Price, want string) {
	t.Helper()
	if want == "" {
		if p.Known {
			t.Errorf("%s = %s, want unknown", what, p.Amount)
		}
		return
	}
	if !p.Known || !p.Amount.Equal(dec(want)) || p.Currency != "CNY" || p.Source != "test@2026-11-30" || p.AsOf != "2026-11-30" {
		t.Errorf("%s = %+v, want %s CNY cited test@2026-11-30", what, p, want)
	}
}

// TestZoneConfigDocumentedExample: the API page's example answer has one
// non-GPU row (S2.SMALL1), left out; the tccli form without "Response"
// reads alike.
func TestZoneConfigDocumentedExample(t *testing.T) {
	body := `{"InstanceTypeQuotaSet": [{"Status": "SELL", "Zone": "ap-guangzhou-6", "Price": {"DiscountPrice": 59, "OriginalPrice": 59, "ChargeUnit": "HOUR", "OriginalPriceOneYear": 708, "DiscountPriceOneYear": 587.64},
		"InstanceFamily": "S2", "InstanceType": "S2.SMALL1", "InstanceChargeType": "POSTPAID_BY_HOUR", "Memory": 1, "Cpu": 1, "Gpu": 0, "GpuCount": 0}],
		"RequestId": "c28559ca-d3cf-40f0-9664-2ab303484efa"}`
	res, err := New().Parse(FormatZoneConfig, strings.NewReader(body), feeds.ParseOptions{Source: "s", AsOf: "2025-09-23"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offerings)+len(res.Commitments) != 0 || len(res.LeftOut) != 1 || !strings.Contains(res.LeftOut[0].Reason, "not a GPU") {
		t.Errorf("got %+v, want S2.SMALL1 left out as not a GPU type", res)
	}
}

func TestZoneConfigBadAnswers(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"error answer", `{"Response":{"Error":{"Code":"InvalidParameterValue","Message":"bad zone"},"RequestId":"r1"}}`, "the answer is an error: InvalidParameterValue: bad zone (RequestId r1)"},
		{"truncated", `{"Response":{"InstanceTypeQuotaSet":[{"Zone":"ap-guangzhou-3"`, "malformed answer"},
		{"not an object", `[1,2]`, "malformed answer"},
		{"no rows and no error", `{"Response":{"RequestId":"r"}}`, "no InstanceTypeQuotaSet"},
		{"row of the wrong type", `{"Response":{"InstanceTypeQuotaSet":[{"Cpu":"many"}]}}`, "InstanceTypeQuotaSet[0]"},
		{"a second answer without rows", `{"Response":{"InstanceTypeQuotaSet":[]}} {}`, "no InstanceTypeQuotaSet"},
		{"trailing data", `{"Response":{"InstanceTypeQuotaSet":[]}} 42`, "malformed answer"},
		{"empty", ``, "malformed answer"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New().Parse(FormatZoneConfig, strings.NewReader(tc.body), feeds.ParseOptions{Source: "s", AsOf: "2026-11-30", Origin: "x.json"})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "x.json: ") {
				t.Errorf("err = %v, want x.json: ... %q", err, tc.want)
			}
		})
	}
}

func TestParseOptionsAndFormat(t *testing.T) {
	im := New()
	if _, err := im.Parse("tencent-bogus", strings.NewReader("{}"), feeds.ParseOptions{Source: "s", AsOf: "2026-11-30"}); err == nil ||
		!strings.Contains(err.Error(), "tencent-zoneconfig, tencent-inquiry") {
		t.Errorf("unknown format: err = %v, want the allowed formats named", err)
	}
	if _, err := im.Parse(FormatZoneConfig, strings.NewReader("{}"), feeds.ParseOptions{Source: "s", AsOf: "30/11/2026"}); err == nil || !strings.Contains(err.Error(), "YYYY-MM-DD") {
		t.Errorf("bad as-of: err = %v", err)
	}
	// A zone of another region than the one asked is left out.
	body := `{"InstanceTypeQuotaSet":[{"Zone":"ap-beijing-1","InstanceType":"GN7.2XLARGE32","InstanceChargeType":"POSTPAID_BY_HOUR","GpuCount":1,"Price":{"UnitPriceDiscount":8,"ChargeUnit":"HOUR"}}]}`
	res, err := im.Parse(FormatZoneConfig, strings.NewReader(body), feeds.ParseOptions{Source: "s", AsOf: "2026-11-30", Region: "ap-shanghai"})
	if err != nil || len(res.Offerings) != 0 || len(res.LeftOut) != 1 || !strings.Contains(res.LeftOut[0].Reason, "not in region ap-shanghai") {
		t.Errorf("res = %+v, err %v; want the row left out as outside ap-shanghai", res, err)
	}
}

func TestZoneRegion(t *testing.T) {
	for zone, want := range map[string]string{"ap-guangzhou-6": "ap-guangzhou", "na-siliconvalley-2": "na-siliconvalley", "ap-shanghai-fsi-1": "ap-shanghai-fsi", "ap-guangzhou": "", "-1": "", "ap-x-": ""} {
		got, ok := zoneRegion(zone)
		if got != want || ok != (want != "") {
			t.Errorf("zoneRegion(%q) = %q, %v; want %q", zone, got, ok, want)
		}
	}
}

func TestIsGPU(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		q    QuotaItem
		want bool
	}{
		{QuotaItem{InstanceFamily: "GN7", GpuCount: f(1)}, true},
		{QuotaItem{InstanceFamily: "GN7vw", GpuCount: f(0.25)}, true}, // a vGPU slice
		{QuotaItem{InstanceFamily: "HCCIC5", Gpu: f(0), GpuCount: f(0)}, false},
		{QuotaItem{InstanceFamily: "GN7"}, true}, // no count at all: the family says
		{QuotaItem{InstanceFamily: "S5"}, false},
		{QuotaItem{InstanceFamily: "GN7", Gpu: f(0), GpuCount: f(0)}, false}, // counts given: they win
	}
	for _, tc := range tests {
		if got := tc.q.IsGPU(); got != tc.want {
			t.Errorf("IsGPU(%s, gpu %v, count %v) = %v, want %v", tc.q.InstanceFamily, tc.q.Gpu, tc.q.GpuCount, got, tc.want)
		}
	}
}

// TestZoneConfigSeveralAnswers: one answer per charge type, one after
// another in one file (tccli ... >> file), read as one.
func TestZoneConfigSeveralAnswers(t *testing.T) {
	raw, err := os.ReadFile("testdata/zoneconfig-gpu-synthetic.json")
	if err != nil {
		t.Fatal(err)
	}
	var ans struct {
		Response struct{ InstanceTypeQuotaSet []json.RawMessage }
	}
	if err := json.Unmarshal(raw, &ans); err != nil {
		t.Fatal(err)
	}
	var file strings.Builder
	for _, charge := range []string{ChargePostpaid, ChargeSpot, ChargePrepaid} {
		var rows []json.RawMessage
		for _, row := range ans.Response.InstanceTypeQuotaSet {
			var q QuotaItem
			if err := json.Unmarshal(row, &q); err != nil {
				t.Fatal(err)
			}
			if q.InstanceChargeType == charge {
				rows = append(rows, row)
			}
		}
		b, _ := json.Marshal(map[string]any{"InstanceTypeQuotaSet": rows, "RequestId": charge})
		file.Write(b)
		file.WriteString("\n")
	}
	res, err := New().Parse(FormatZoneConfig, strings.NewReader(file.String()), feeds.ParseOptions{Source: "test@2026-11-30", AsOf: "2026-11-30"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Offerings) != 3 || len(res.Commitments) != 3 {
		t.Fatalf("%d offerings, %d commitments; want 3 and 3 as from the single answer", len(res.Offerings), len(res.Commitments))
	}
	checkPrice(t, "GT4 zone 3 on-demand", res.Offerings[1].OnDemand, "80")
	checkPrice(t, "GT4 zone 3 spot", res.Offerings[1].Spot, "20")
}
