package usercatalog

import (
	"fmt"
	"testing"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// awsWide is the shape of an AWS refresh of every region: each AWS type of
// the catalog priced in 30 regions, with 12 Reserved Instance prices each.
func awsWide(b testing.TB, regions int) *feeds.Result {
	base := embedded(b)
	src := "aws-pricing-api@2026-11-30"
	types := map[string]bool{}
	for i := range base.Offerings {
		if base.Offerings[i].Provider == "aws" {
			types[base.Offerings[i].InstanceType] = true
		}
	}
	res := &feeds.Result{}
	n := 0
	for typ := range types {
		for r := range regions {
			region := fmt.Sprintf("xx-region-%d", r)
			n++
			res.Offerings = append(res.Offerings, feeds.Offering{Origin: fmt.Sprint(n), Provider: "aws", InstanceType: typ, Region: region,
				OnDemand: feeds.Known(decimal.New(int64(100+n), -2), "USD", src, "2026-11-30")})
			for _, term := range []string{"1y", "3y"} {
				for _, class := range []string{"standard", "convertible"} {
					for _, pay := range []string{"no-upfront", "partial-upfront", "all-upfront"} {
						res.Commitments = append(res.Commitments, feeds.Commitment{Origin: fmt.Sprint(n), Provider: "aws", InstanceType: typ, Region: region,
							Model: "reserved", Term: term, Payment: pay, Class: class, Upfront: decimal.NewFromInt(1000), Hourly: decimal.New(5, -1), Currency: "USD", Source: src, AsOf: "2026-11-30"})
					}
				}
			}
		}
	}
	return res
}

// BenchmarkBuildAWSAllRegions: time to turn a whole-AWS refresh into a set.
func BenchmarkBuildAWSAllRegions(b *testing.B) {
	base := embedded(b)
	res := awsWide(b, 30)
	for b.Loop() {
		if _, _, err := Build(base, res, meta("aws", nil, day)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(res.Offerings)), "offerings")
	b.ReportMetric(float64(len(res.Commitments)), "commitments")
}
