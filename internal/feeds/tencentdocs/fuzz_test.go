package tencentdocs

import (
	"strings"
	"testing"

	"github.com/shopspring/decimal"
)

// Each parser is fuzzed from excerpts of its real page: never a panic, and
// whatever it accepts is a row with a type and a price above 0 within the
// bounds (an error is fine; a silent zero is not).

func checkPrice(t *testing.T, what string, d decimal.Decimal, limit int64) {
	t.Helper()
	if !d.IsPositive() || d.GreaterThan(decimal.NewFromInt(limit)) {
		t.Fatalf("%s: accepted price %s", what, d)
	}
}

func FuzzParseList(f *testing.F) {
	f.Add(listExcerpt)
	f.Add(listExcerpt[:strings.Index(listExcerpt, "GN7.LARGE20")])
	f.Add("instance_type,gpu,monthly_cny_low,monthly_cny_high,hourly_cny_low,hourly_cny_high\nGN7.2XLARGE40,T4 1/2,1800,2000,6.25,6.94\n")
	f.Add("instance_type,gpu,monthly_cny_low,monthly_cny_high,hourly_cny_low,hourly_cny_high\n\"GI3X.8XLARGE64\",\"T4 x1\",4600,4600,9.58,9.58\r\n")
	f.Fuzz(func(t *testing.T, s string) {
		rows, err := ParseList(strings.NewReader(s))
		if err != nil {
			if rows != nil {
				t.Fatalf("rows with an error: %v", err)
			}
			return
		}
		for _, r := range rows {
			if !instanceTypeRE().MatchString(r.InstanceType) || r.Line < 2 || !(r.GPUCount > 0) {
				t.Fatalf("accepted row %+v", r)
			}
			checkPrice(t, r.InstanceType+" monthly low", r.MonthlyLow, maxMonthly)
			checkPrice(t, r.InstanceType+" monthly high", r.MonthlyHigh, maxMonthly)
			checkPrice(t, r.InstanceType+" hourly low", r.HourlyLow, maxHourly)
			checkPrice(t, r.InstanceType+" hourly high", r.HourlyHigh, maxHourly)
			if r.MonthlyLow.GreaterThan(r.MonthlyHigh) || r.HourlyLow.GreaterThan(r.HourlyHigh) {
				t.Fatalf("accepted a range with low above high: %+v", r)
			}
		}
	})
}

func FuzzParseCVMPage(f *testing.F) {
	f.Add(cvmExcerpt)
	f.Add(cvmExcerpt[:strings.LastIndex(cvmExcerpt, "[Back to Top]")])
	f.Add("### Silicon Valley\n| Model | Specification | vCPU | MEM | Processor model \\(clock rate\\) | Fee |\n| --- | --- | --- | --- | --- | --- |\n" +
		"| GPU Compute GN8   | GN8\\.14XLARGE448 | 56\\-core | 448GB | Intel Xeon E5\\-2680 v4\\(2\\.4 GHz\\)  | 20\\.07USD/hr  |\n[Back to Top](#CVMPricing)\n")
	f.Fuzz(func(t *testing.T, s string) {
		rows, err := ParseCVMPage(strings.NewReader(s))
		if err != nil {
			if rows != nil {
				t.Fatalf("rows with an error: %v", err)
			}
			return
		}
		if len(rows) == 0 {
			t.Fatal("a page accepted with no rows")
		}
		for _, r := range rows {
			if _, ok := RegionForHeading(r.Heading); !ok || r.Region == "" || !instanceTypeRE().MatchString(r.InstanceType) || r.VCPUs <= 0 || r.Line <= 0 {
				t.Fatalf("accepted row %+v", r)
			}
			checkPrice(t, r.InstanceType, r.Price, maxHourly)
		}
	})
}

func FuzzParseOverview(f *testing.F) {
	f.Add(overviewExcerpt)
	f.Add(overviewExcerpt[:strings.Index(overviewExcerpt, "## Repossession")])
	f.Add("> The prices on this page are for Guangzhou Zone 3.\n### Computing GN8\n| Instance Specification | GPU (Tesla P40) | GPU Video Memory | vCPU | Memory | Pay-as-You-Go |\n" +
		"| --- | --- | --- | --- | --- | --- |\n| GN8.LARGE56     | 1           | 24 GB    | 6 cores  | 56 GB  | 2.45 USD/hr |\n## Notes\n")
	f.Fuzz(func(t *testing.T, s string) {
		ov, err := ParseOverview(strings.NewReader(s))
		if err != nil {
			if ov != nil {
				t.Fatalf("an overview with an error: %v", err)
			}
			return
		}
		if ov.Zone == "" || ov.Region.Name == "" || len(ov.Rows) == 0 {
			t.Fatalf("accepted an overview without its zone or rows: %+v", ov)
		}
		for _, r := range ov.Rows {
			if !instanceTypeRE().MatchString(r.InstanceType) || Family(r.InstanceType) != r.Family || !(r.GPUCount > 0) || r.VCPUs <= 0 || r.MemoryGB <= 0 {
				t.Fatalf("accepted row %+v", r)
			}
			checkPrice(t, r.InstanceType, r.Price, maxHourly)
		}
	})
}
