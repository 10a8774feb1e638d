// Package registry lists every price feed gpuscout's catalog build reads, in
// the order the build applies them, each with the files it reads and the
// source ids its rows are cited by. Adding a provider is one feed package
// and one line here; nothing registers itself.
package registry

import (
	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/alibabalist"
	"github.com/gpuscout/gpuscout/internal/feeds/awscapacityblocks"
	"github.com/gpuscout/gpuscout/internal/feeds/awsondemand"
	"github.com/gpuscout/gpuscout/internal/feeds/awsprices"
	"github.com/gpuscout/gpuscout/internal/feeds/azuretable"
	"github.com/gpuscout/gpuscout/internal/feeds/curated"
	"github.com/gpuscout/gpuscout/internal/feeds/gcpprices"
	"github.com/gpuscout/gpuscout/internal/feeds/skypilot"
	"github.com/gpuscout/gpuscout/internal/feeds/tencentdocs"
)

// SkyPilot source ids, one per upstream commit the files were read at; their
// as-of dates must equal those in the catalog's sources.yaml (the build checks).
const (
	skyPilot2c3d7ea7 = "skypilot-v9@2c3d7ea7"
	skyPilotd9bf3aa4 = "skypilot-v9@d9bf3aa4"
	skyPilota5be5386 = "skypilot-v9@a5be5386"
	skyPilotAsOf     = "2026-07-09" // the v9 folder's creation; SOURCE.md
)

// Sources returns the feeds in build order. Specs (curated) come first, then
// per-zone feeds before per-region ones, so that a later region-wide price
// for rows an earlier feed gave per zone is cross-checked instead of added.
func Sources() []feeds.Source {
	return []feeds.Source{
		curated.New("*.yaml"),
		skypilot.New(
			skypilot.File{Path: "skypilot-catalog/aws/vms.p4d-p5-excerpt.csv", Cloud: "aws", Source: skyPilot2c3d7ea7, AsOf: skyPilotAsOf},
			skypilot.File{Path: "skypilot-catalog/lambda/vms.csv", Cloud: "lambda", Source: skyPilot2c3d7ea7, AsOf: skyPilotAsOf},
			skypilot.File{Path: "skypilot-catalog/fluidstack/vms.csv", Cloud: "fluidstack", Source: skyPilot2c3d7ea7, AsOf: skyPilotAsOf},
			skypilot.File{Path: "skypilot-catalog/seeweb/vms.csv", Cloud: "seeweb", Source: skyPilot2c3d7ea7, AsOf: skyPilotAsOf},
			skypilot.File{Path: "skypilot-catalog/nebius/vms.csv", Cloud: "nebius", Source: skyPilotd9bf3aa4, AsOf: skyPilotAsOf},
			skypilot.File{Path: "skypilot-catalog/vast/vms.csv", Cloud: "vast", Source: skyPilota5be5386, AsOf: skyPilotAsOf,
				MemoryIsTotal: true, StateCountryContinent: true},
		),
		awsondemand.New("aws-ondemand/aws-gpu-accelerated-ondemand.csv",
			map[string]string{"us-east-1": "karpenter-aws@2026-07-20", "cn-north-1": "karpenter-aws-cn@2024-11-06"}),
		awsprices.NewPriceList(
			awsprices.File{Path: "price-feeds/aws-offer-ec2-us-west-2-excerpt.json", Source: "aws-offer-ec2-us-west-2@2018-05-04"},
			awsprices.File{Path: "price-feeds/aws-pricing-getproducts-m5large-us-east-1.json", Source: "aws-getproducts-m5large@2021-02-05"},
		),
		gcpprices.New("price-feeds/gcp-cyclenerd-pricing-gpu-excerpt.json", "cyclenerd-gcp@2026-07-30", "2026-07-30"),
		// Tencent's international GPU overview prices one zone (Guangzhou
		// Zone 3; in mainland China the China-site list prices the type
		// region-wide instead, tencentdocs.ChinaListPrices), so this comes
		// before the per-region tables.
		tencentdocs.New(tencentdocs.Files{
			List:     tencentdocs.File{Path: "price-sources/tencent-qcloud-gpu-price-overview-cny.transcribed.csv", Source: "tencent-qcloud-gpu-prices@8ec07296", AsOf: "2021-01-01"},
			CVM:      tencentdocs.File{Path: "price-sources/tencent-intl-cvm-price-linux_en.md", Source: "tencent-intl-cvm-prices@b7e17ea6", AsOf: "2020-05-22"},
			Overview: tencentdocs.File{Path: "price-sources/tencent-intl-gpu-price-overview_en.md", Source: "tencent-intl-gpu-prices@b7e17ea6", AsOf: "2020-07-21"},
		}),
		alibabalist.New("price-sources/alibaba-karpenter-initial-on-demand-prices.json", "karpenter-alibaba@5d2e0774", "2024-12-30"),
		azuretable.New("price-sources/azure-karpenter-zz_generated.pricing.go.txt", "karpenter-azure@2b431da1"),
		awsprices.NewSpotAdvisor("price-feeds/aws-spot-advisor-excerpt.json", "aws-spot-advisor@2025-06-28", "2025-06-28"),
		// Commitments attach to offerings listed above, so this comes after them.
		awscapacityblocks.New("price-sources/aws-capacity-blocks-pricing.json", "aws-capacity-blocks@b3a54aee"),
	}
}

// Lookup returns the registered feed with the id, or nil.
func Lookup(id string) feeds.Source {
	for _, s := range Sources() {
		if s.ID() == id {
			return s
		}
	}
	return nil
}
