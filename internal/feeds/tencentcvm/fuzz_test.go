package tencentcvm

import (
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// FuzzParse feeds both formats arbitrary bytes: never a panic, and what is
// imported is a positive CNY price.
func FuzzParse(f *testing.F) {
	// Small seeds (one row each): the fuzzer minimises every new input, which
	// takes long on a whole fixture.
	f.Add(`{"Response":{"InstanceTypeQuotaSet":[{"Zone":"ap-guangzhou-3","InstanceFamily":"GT4","InstanceType":"GT4.41XLARGE948","InstanceChargeType":"POSTPAID_BY_HOUR","GpuCount":8,"Price":{"UnitPrice":100,"UnitPriceDiscount":80,"Discount":80,"ChargeUnit":"HOUR"}}],"RequestId":"r"}}`)
	f.Add(`{"InstanceTypeQuotaSet":[{"Zone":"ap-guangzhou-3","InstanceType":"GT4.41XLARGE948","InstanceChargeType":"PREPAID","Gpu":8,"Price":{"OriginalPrice":50000,"DiscountPrice":40000,"OriginalPriceOneYear":600000,"DiscountOneYear":80,"DiscountPriceThreeYear":900000}}]}`)
	f.Add(`[{"Request":{"Placement":{"Zone":"ap-shanghai-2"},"InstanceType":"GN7.2XLARGE32","InstanceChargeType":"SPOTPAID"},"Response":{"Response":{"Price":{"InstancePrice":{"UnitPrice":10,"Discount":20,"ChargeUnit":"HOUR"}}}}}]`)
	f.Add(`{"Response":{"Error":{"Code":"RequestLimitExceeded","Message":"x"},"RequestId":"r"}}`)
	f.Add(`{"Request":{"Placement":{"Zone":"ap-shanghai-2"},"InstanceType":"GN7.2XLARGE32","InstanceChargeType":"PREPAID","InstanceChargePrepaid":{"Period":12}},"Response":{"Price":{"InstancePrice":{"OriginalPrice":1e40000000,"Discount":1e-40000000}}}}`)
	f.Fuzz(func(t *testing.T, s string) {
		for _, format := range []string{FormatZoneConfig, FormatInquiry} {
			res, err := New().Parse(format, strings.NewReader(s), feeds.ParseOptions{Source: "fuzz", AsOf: "2026-11-30"})
			if err != nil {
				continue
			}
			for _, o := range res.Offerings {
				for _, p := range []feeds.Price{o.OnDemand, o.Spot} {
					if p.Known && (!p.Amount.IsPositive() || p.Currency != "CNY") {
						t.Fatalf("%s: imported price %+v", o.Origin, p)
					}
				}
			}
			for _, c := range res.Commitments {
				if !c.Upfront.IsPositive() {
					t.Fatalf("%s: commitment upfront %s", c.Origin, c.Upfront)
				}
			}
		}
	})
}
