package alibabaecs

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

func parseFile(t *testing.T, format, name string, o feeds.ParseOptions) *feeds.Result {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if o.Origin == "" {
		o.Origin = name
	}
	res, err := New().Parse(format, f, o)
	if err != nil {
		t.Fatalf("Parse %s: %v", name, err)
	}
	return res
}

// The documented DescribePrice answers: a 1-year subscription of
// ecs.g6.large at TradePrice 3712.8 CNY = OriginalPrice 4368 − DiscountPrice
// 655.2, paid upfront.
func TestParseDescribePriceDocumented(t *testing.T) {
	for _, name := range []string{"describeprice-ecs-docs.json", "describeprice-api-reference.json"} {
		t.Run(name, func(t *testing.T) {
			res := parseFile(t, FormatDescribePrice, name, feeds.ParseOptions{Source: "alibaba-doc", AsOf: "2020-06-01"})
			if len(res.Offerings) != 0 || len(res.LeftOut) != 0 || len(res.Commitments) != 1 {
				t.Fatalf("got %d offerings, %d left out %v, %d commitments; want one commitment", len(res.Offerings), len(res.LeftOut), res.LeftOut, len(res.Commitments))
			}
			c := res.Commitments[0]
			want := decimal.RequireFromString("4368").Sub(decimal.RequireFromString("655.2"))
			if c.Provider != "alibaba" || c.InstanceType != "ecs.g6.large" || c.Region != "cn-hangzhou" || c.Model != "subscription" ||
				c.Term != "1y" || c.Payment != "all-upfront" || !c.Upfront.Equal(want) || !c.Hourly.IsZero() || !c.Monthly.IsZero() ||
				c.Currency != "CNY" || c.Source != "alibaba-doc" || c.AsOf != "2020-06-01" || c.Origin != name+"#0" {
				t.Errorf("commitment = %+v, want 1y all-upfront %s CNY", c, want)
			}
		})
	}
}

// The documented DescribeSpotPriceHistory answer: two hourly rows of one
// zone; the later one is kept, the earlier left out as superseded.
func TestParseSpotHistoryDocumented(t *testing.T) {
	res := parseFile(t, FormatSpotHistory, "spothistory-ecs-docs.json", feeds.ParseOptions{Source: "alibaba-doc"})
	if len(res.Offerings) != 1 || len(res.LeftOut) != 1 {
		t.Fatalf("got %d offerings, left out %v; want one offering and one superseded row", len(res.Offerings), res.LeftOut)
	}
	o := res.Offerings[0]
	if o.InstanceType != "ecs.g5.large" || o.Region != "cn-hangzhou" || o.Zone != "cn-hangzhou-g" || o.Origin != "spothistory-ecs-docs.json#SpotPriceType[1]" {
		t.Errorf("offering = %+v", o)
	}
	if !o.Spot.Known || !o.Spot.Amount.Equal(decimal.RequireFromString("0.036")) || o.Spot.Currency != "CNY" || o.Spot.AsOf != "2019-11-19" {
		t.Errorf("spot = %+v, want 0.036 CNY as of 2019-11-19 (the row's date)", o.Spot)
	}
	if !o.OnDemand.Known || !o.OnDemand.Amount.Equal(decimal.RequireFromString("0.354")) {
		t.Errorf("on-demand = %+v, want the row's OriginPrice 0.354", o.OnDemand)
	}
	if l := res.LeftOut[0]; l.Origin != "spothistory-ecs-docs.json#SpotPriceType[0]" || !strings.Contains(l.Reason, "superseded") {
		t.Errorf("left out %+v", l)
	}
}

// ans is a DescribePrice answer of TradePrice p (the documented shape).
func ans(p string) string {
	return `{"RequestId":"r","PriceInfo":{"Price":{"Currency":"CNY","OriginalPrice":` + p + `,"DiscountPrice":0,"TradePrice":` + p + `}}}`
}

func ex(req, resp string) string { return `{"Request":` + req + `,"Response":` + resp + `}` }

// Pricing models: hourly pay-as-you-go, spot per zone, subscriptions; the
// per-zone offerings carry the region's pay-as-you-go price and come before
// the region-wide one.
func TestParseDescribePriceModels(t *testing.T) {
	in := "[" + strings.Join([]string{
		ex(`{"RegionId":"cn-beijing","InstanceType":"ecs.gn7-c13g1.26xlarge","PriceUnit":"Hour"}`, ans("200.5")),
		ex(`{"RegionId":"cn-beijing","InstanceType":"ecs.gn7-c13g1.26xlarge","SpotStrategy":"SpotAsPriceGo","ZoneId":"cn-beijing-i"}`, ans("40.1")),
		ex(`{"RegionId":"cn-beijing","InstanceType":"ecs.gn7-c13g1.26xlarge","PriceUnit":"Month","Period":1}`, ans("90000")),
		ex(`{"RegionId":"cn-beijing","InstanceType":"ecs.gn7-c13g1.26xlarge","PriceUnit":"Year","Period":3}`, ans("2000000")),
		// The instance's own line of DetailInfos, not the total with the system disk.
		ex(`{"RegionId":"cn-shanghai","InstanceType":"ecs.gn7-c13g1.26xlarge"}`,
			`{"PriceInfo":{"Price":{"Currency":"USD","TradePrice":30.2,"DetailInfos":{"DetailInfo":[{"Resource":"systemDisk","TradePrice":0.2},{"Resource":"instanceType","TradePrice":30}]}}}}`),
	}, ",") + "]"
	res, err := New().Parse(FormatDescribePrice, strings.NewReader(in), feeds.ParseOptions{Source: "s", AsOf: "2026-12-01", Origin: "f"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.LeftOut) != 0 || len(res.Offerings) != 3 || len(res.Commitments) != 2 {
		t.Fatalf("offerings %+v\ncommitments %+v\nleft out %v", res.Offerings, res.Commitments, res.LeftOut)
	}
	type off struct{ region, zone, od, spot, cur string }
	want := []off{{"cn-beijing", "cn-beijing-i", "200.5", "40.1", "CNY"}, {"cn-beijing", "", "200.5", "", "CNY"}, {"cn-shanghai", "", "30", "", "USD"}}
	for i, w := range want {
		o := res.Offerings[i]
		spot := ""
		if o.Spot.Known {
			spot = o.Spot.Amount.String()
		}
		if o.Region != w.region || o.Zone != w.zone || o.OnDemand.Amount.String() != w.od || spot != w.spot || o.OnDemand.Currency != w.cur {
			t.Errorf("offering %d = %s/%s od %s spot %s %s, want %+v", i, o.Region, o.Zone, o.OnDemand.Amount, spot, o.OnDemand.Currency, w)
		}
	}
	if c := res.Commitments[0]; c.Term != "1mo" || !c.Upfront.Equal(decimal.NewFromInt(90000)) {
		t.Errorf("first commitment %+v, want 1mo 90000 upfront", c)
	}
	if c := res.Commitments[1]; c.Term != "3y" || !c.Upfront.Equal(decimal.NewFromInt(2000000)) {
		t.Errorf("second commitment %+v, want 3y 2000000 upfront", c)
	}
}

// Bad feeds: rows with missing fields, unknown units, non-positive prices or
// an unexpected currency are left out with a reason, never priced zero.
func TestParseLeavesOutBadRows(t *testing.T) {
	req := func(extra string) string {
		return `{"RegionId":"cn-hangzhou","InstanceType":"ecs.gn7i-c8g1.2xlarge"` + extra + `}`
	}
	for _, tc := range []struct{ name, in, reason string }{
		{"no instance type", ex(`{"RegionId":"cn-hangzhou"}`, ans("1")), "no InstanceType"},
		{"unknown unit", ex(req(`,"PriceUnit":"Fortnight"`), ans("1")), `PriceUnit "Fortnight"`},
		{"week", ex(req(`,"PriceUnit":"Week"`), ans("1")), "Week"},
		{"period out of range", ex(req(`,"PriceUnit":"Year","Period":7`), ans("1")), "Period 7"},
		{"zero price", ex(req(""), ans("0")), "not a positive price"},
		{"negative price", ex(req(""), ans("-3.5")), "not a positive price"},
		{"missing price", ex(req(""), `{"PriceInfo":{"Price":{"Currency":"CNY"}}}`), "no TradePrice"},
		{"euro", ex(req(""), `{"PriceInfo":{"Price":{"Currency":"EUR","TradePrice":3}}}`), `currency "EUR"`},
		{"no currency", ex(req(""), `{"PriceInfo":{"Price":{"TradePrice":3}}}`), `currency ""`},
		{"error answer", ex(req(""), `{"RequestId":"x","Code":"PriceNotFound","Message":"The price of your queried resource is not available now, please try other resources."}`), "PriceNotFound"},
		{"no response", `{"Request":` + req("") + `}`, "no Response"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := New().Parse(FormatDescribePrice, strings.NewReader("["+tc.in+"]"), feeds.ParseOptions{Source: "s", AsOf: "2026-12-01"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Offerings)+len(res.Commitments) != 0 || len(res.LeftOut) != 1 || !strings.Contains(res.LeftOut[0].Reason, tc.reason) {
				t.Errorf("offerings %v commitments %v left out %v; want one left out saying %q", res.Offerings, res.Commitments, res.LeftOut, tc.reason)
			}
		})
	}
	spot := func(cur, row string) string {
		return `{"Currency":"` + cur + `","SpotPrices":{"SpotPriceType":[` + row + `]}}`
	}
	good := `"InstanceType":"ecs.gn6i-c4g1.xlarge","ZoneId":"cn-hangzhou-h","Timestamp":"2026-11-30T10:00:00Z"`
	for _, tc := range []struct{ name, in, reason string }{
		{"negative spot", spot("CNY", `{`+good+`,"SpotPrice":-1}`), "not a positive price"},
		{"zero spot", spot("CNY", `{`+good+`,"SpotPrice":0}`), "not a positive price"},
		{"no zone", spot("CNY", `{"InstanceType":"ecs.gn6i-c4g1.xlarge","Timestamp":"2026-11-30T10:00:00Z","SpotPrice":1}`), "without"},
		{"bad time", spot("CNY", `{"InstanceType":"ecs.gn6i-c4g1.xlarge","ZoneId":"cn-hangzhou-h","Timestamp":"yesterday","SpotPrice":1}`), "Timestamp"},
		{"unexpected currency", spot("JPY", `{`+good+`,"SpotPrice":1}`), `currency "JPY"`},
		{"zone without region", spot("CNY", `{"InstanceType":"ecs.gn6i-c4g1.xlarge","ZoneId":"moon","Timestamp":"2026-11-30T10:00:00Z","SpotPrice":1}`), "names no region"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := New().Parse(FormatSpotHistory, strings.NewReader(tc.in), feeds.ParseOptions{Source: "s"})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Offerings) != 0 || len(res.LeftOut) != 1 || !strings.Contains(res.LeftOut[0].Reason, tc.reason) {
				t.Errorf("offerings %v left out %v; want one left out saying %q", res.Offerings, res.LeftOut, tc.reason)
			}
		})
	}
}

// Malformed files are errors naming the file, never a partial import.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, format, in, want string }{
		{"not json", FormatDescribePrice, "{", "f"},
		{"empty", FormatDescribePrice, "  ", "empty"},
		{"bare answer", FormatDescribePrice, ans("1"), "does not say what it prices"},
		{"not an answer", FormatDescribePrice, `[` + ex(`{"RegionId":"a-b","InstanceType":"ecs.x"}`, `{"Foo":1}`) + `]`, "no PriceInfo.Price"},
		{"trailing data", FormatDescribePrice, `[] []`, "after"},
		{"spot not an answer", FormatSpotHistory, `{"Foo":1}`, "no SpotPrices"},
		{"spot error answer", FormatSpotHistory, `{"Code":"Throttling.User","Message":"Request was denied due to user flow control."}`, "Throttling.User"},
		{"unknown format", "alibaba-bill", `{}`, "alibaba-describeprice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New().Parse(tc.format, strings.NewReader(tc.in), feeds.ParseOptions{Origin: "f", AsOf: "2026-11-30"})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// DescribePrice answers carry no date: without one given, nothing is
// imported and the error says so (feeds.ErrNoDate); spot history rows are
// dated by their own Timestamp.
func TestParseDates(t *testing.T) {
	_, err := New().Parse(FormatDescribePrice, strings.NewReader(`[`+ex(`{"RegionId":"cn-hangzhou","InstanceType":"ecs.gn7i-c8g1.2xlarge","PriceUnit":"Hour"}`, ans("7.5"))+`]`), feeds.ParseOptions{Source: "s", Origin: "f"})
	if !errors.Is(err, feeds.ErrNoDate) {
		t.Errorf("DescribePrice without an as-of date: err %v, want feeds.ErrNoDate", err)
	}
}

func TestRegionOfZone(t *testing.T) {
	for zone, want := range map[string]string{"cn-hangzhou-g": "cn-hangzhou", "ap-southeast-1a": "ap-southeast-1", "cn-beijing-h": "cn-beijing",
		"us-west-1b": "us-west-1", "cn-hangzhou": "", "moon": "", "": ""} {
		if got := regionOfZone(zone); got != want {
			t.Errorf("regionOfZone(%q) = %q, want %q", zone, got, want)
		}
	}
}

func checkResult(t *testing.T, res *feeds.Result) {
	t.Helper()
	for _, o := range res.Offerings {
		for _, p := range []feeds.Price{o.OnDemand, o.Spot} {
			if p.Known && !p.Amount.IsPositive() || !p.Known && !p.Amount.IsZero() {
				t.Fatalf("%s: price %+v: a known price must be positive, an unknown one zero", o.Origin, p)
			}
		}
	}
	for _, c := range res.Commitments {
		if !c.Upfront.IsPositive() {
			t.Fatalf("%s: commitment without a positive upfront", c.Origin)
		}
	}
}

func FuzzParseDescribePrice(f *testing.F) {
	for _, name := range []string{"describeprice-ecs-docs.json", "describeprice-api-reference.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(`[` + ex(`{"RegionId":"cn-hangzhou","InstanceType":"ecs.gn7-c13g1.26xlarge","SpotStrategy":"SpotAsPriceGo"}`, ans("-1")) + `]`)
	f.Fuzz(func(t *testing.T, s string) {
		res, err := New().Parse(FormatDescribePrice, strings.NewReader(s), feeds.ParseOptions{Source: "s", AsOf: "2026-12-01"})
		if err == nil {
			checkResult(t, res)
		}
	})
}

func FuzzParseSpotHistory(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "spothistory-ecs-docs.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Fuzz(func(t *testing.T, s string) {
		res, err := New().Parse(FormatSpotHistory, strings.NewReader(s), feeds.ParseOptions{Source: "s"})
		if err == nil {
			checkResult(t, res)
		}
	})
}
