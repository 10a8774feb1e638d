package awsprices

import (
	"os"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

func keepAll(string) (string, string) { return "", "" }

// TestSpotHistoryRecordedJSON: the latest price per zone of the recorded
// m5.large response. Source rows (the first of each zone in the file, which
// lists the most recent first): us-east-1f 0.043700 at 2021-02-09T01:40:10,
// us-east-1a 0.042300 at 2021-02-08T23:58:38, us-east-1b 0.038900 at
// 2021-02-08T21:46:09, us-east-1c 0.038100 at 2021-02-08T20:38:39.
func TestSpotHistoryRecordedJSON(t *testing.T) {
	h, err := ParseSpotHistory(strings.NewReader(readShared(t, "aws-ec2-describespotpricehistory-m5large.json")), SpotHistoryOptions{Origin: "f", Keep: keepAll})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct{ price, at string }{
		"us-east-1f": {"0.0437", "2021-02-09T01:40:10Z"}, "us-east-1a": {"0.0423", "2021-02-08T23:58:38Z"},
		"us-east-1b": {"0.0389", "2021-02-08T21:46:09Z"}, "us-east-1c": {"0.0381", "2021-02-08T20:38:39Z"},
	}
	seen := 0
	for _, p := range h.Prices {
		w, ok := want[p.Zone]
		if !ok {
			continue
		}
		seen++
		if p.InstanceType != "m5.large" || p.Region != "us-east-1" || !p.Price.Equal(dec(w.price)) || p.At.UTC().Format("2006-01-02T15:04:05Z") != w.at {
			t.Errorf("%s: %s at %s, want %s at %s", p.Zone, p.Price, p.At, w.price, w.at)
		}
	}
	if seen != len(want) {
		t.Errorf("%d of the %d zones found in %+v", seen, len(want), h.Prices)
	}
	// Every other row is an older price of a zone already priced.
	res := &feeds.Result{}
	h.Records("f", "src", res)
	for _, l := range res.LeftOut {
		if !strings.Contains(l.Reason, "later price") {
			t.Errorf("left out %v", l)
		}
	}
	for _, o := range res.Offerings {
		if o.OnDemand.Known || !o.Spot.Known || o.Spot.Currency != "USD" || o.Zone == "" || o.Spot.AsOf[:4] != "2021" {
			t.Errorf("offering %+v", o)
		}
	}
	// The GPU filter (the default) leaves every m5.large row out.
	h, err = ParseSpotHistory(strings.NewReader(readShared(t, "aws-ec2-describespotpricehistory-m5large.json")), SpotHistoryOptions{Origin: "f"})
	if err != nil || len(h.Prices) != 0 || len(h.LeftOut) == 0 || !strings.Contains(h.LeftOut[0].Reason, "GPU") {
		t.Errorf("GPU filter: %v, %d prices, %v", err, len(h.Prices), h.LeftOut[:1])
	}
}

// TestSpotHistoryXML: the EC2 Query API's XML (testdata/SOURCE.md): the
// Linux row kept, the Windows row left out.
func TestSpotHistoryXML(t *testing.T) {
	f, err := os.Open("testdata/describespotpricehistory-example.xml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h, err := ParseSpotHistory(f, SpotHistoryOptions{Origin: "x", Keep: keepAll})
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Prices) != 1 || h.NextToken != "" || len(h.LeftOut) != 1 {
		t.Fatalf("prices %+v, next %q, left out %v", h.Prices, h.NextToken, h.LeftOut)
	}
	p := h.Prices[0]
	if p.InstanceType != "m3.medium" || p.Zone != "us-west-2a" || p.Region != "us-west-2" || !p.Price.Equal(dec("0.287")) || p.At.Format("2006-01-02") != "2020-11-01" {
		t.Errorf("price %+v", p)
	}
	if !strings.Contains(h.LeftOut[0].Reason, "not Linux") || h.LeftOut[0].Origin != "x#1" {
		t.Errorf("left out %v", h.LeftOut)
	}
}

func TestSpotHistoryRows(t *testing.T) {
	row := func(typ, zone, desc, price, ts string) string {
		return `{"InstanceType":"` + typ + `","AvailabilityZone":"` + zone + `","ProductDescription":"` + desc + `","SpotPrice":"` + price + `","Timestamp":"` + ts + `"}`
	}
	body := `{"NextToken":"n2","SpotPriceHistory":[` + strings.Join([]string{
		row("p5.48xlarge", "us-east-1a", "Linux/UNIX", "30.1", "2026-11-01T00:00:00Z"),
		row("p5.48xlarge", "us-east-1a", "Linux/UNIX", "31.5", "2026-11-02T00:00:00Z"), // later: replaces the first
		row("p5.48xlarge", "us-east-1b", "Linux/UNIX", "-1", "2026-11-02T00:00:00Z"),
		row("p5.48xlarge", "us-east-1c", "Linux/UNIX", "0", "2026-11-02T00:00:00Z"),
		row("p5.48xlarge", "us-east-1d", "Linux/UNIX", "abc", "2026-11-02T00:00:00Z"),
		row("p5.48xlarge", "us-east-1e", "Linux/UNIX", "1", "yesterday"),
		row("m5.large", "us-east-1a", "Linux/UNIX", "0.04", "2026-11-02T00:00:00Z"),
		row("g5.xlarge", "eu-west-1a", "Linux/UNIX (Amazon VPC)", "0.4", "2026-11-02T00:00:00Z"),
		row("g5.xlarge", "cn-north-1a", "Linux/UNIX", "3.1", "2026-11-02T00:00:00Z"),
	}, ",") + `]}`
	h, err := ParseSpotHistory(strings.NewReader(body), SpotHistoryOptions{Origin: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if h.NextToken != "n2" || len(h.Prices) != 3 {
		t.Fatalf("next %q, prices %+v", h.NextToken, h.Prices)
	}
	got := map[string]string{}
	for _, p := range h.Prices {
		got[p.Zone] = p.Price.String() + " " + p.Currency
	}
	if got["us-east-1a"] != "31.5 USD" || got["eu-west-1a"] != "0.4 USD" || got["cn-north-1a"] != "3.1 CNY" {
		t.Errorf("prices %v", got)
	}
	reasons := map[string]string{}
	for _, l := range h.LeftOut {
		reasons[l.Origin] = l.Reason
	}
	for origin, want := range map[string]string{"b#0": "later price", "b#2": "not positive", "b#3": "not positive", "b#4": "not a number",
		"b#5": "not RFC 3339", "b#6": "not a GPU"} {
		if !strings.Contains(reasons[origin], want) {
			t.Errorf("%s: reason %q, want %q", origin, reasons[origin], want)
		}
	}
}

func TestSpotHistoryErrors(t *testing.T) {
	for name, in := range map[string]string{
		"empty":     "",
		"text":      "hello",
		"bad json":  `{"SpotPriceHistory":[`,
		"no key":    `{"x":1}`,
		"bad xml":   `<DescribeSpotPriceHistoryResponse><spotPriceHistorySet>`,
		"other xml": `<Response><Errors><Error><Code>AuthFailure</Code></Error></Errors></Response>`,
	} {
		if _, err := ParseSpotHistory(strings.NewReader(in), SpotHistoryOptions{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzParseSpotHistory(f *testing.F) {
	f.Add(`{"SpotPriceHistory":[{"InstanceType":"p5.48xlarge","AvailabilityZone":"us-east-1a","ProductDescription":"Linux/UNIX","SpotPrice":"1","Timestamp":"2026-11-01T00:00:00Z"}]}`)
	f.Add(`<DescribeSpotPriceHistoryResponse><spotPriceHistorySet><item><instanceType>g5.xlarge</instanceType><productDescription>Linux/UNIX</productDescription><spotPrice>0.5</spotPrice><timestamp>2026-11-01T00:00:00Z</timestamp><availabilityZone>us-east-1a</availabilityZone></item></spotPriceHistorySet></DescribeSpotPriceHistoryResponse>`)
	f.Fuzz(func(t *testing.T, s string) {
		h, err := ParseSpotHistory(strings.NewReader(s), SpotHistoryOptions{Keep: keepAll})
		if err != nil {
			return
		}
		for _, p := range h.Prices {
			if !p.Price.IsPositive() || p.Region == "" || !strings.HasPrefix(p.Zone, p.Region) {
				t.Fatalf("price %+v", p)
			}
		}
	})
}
