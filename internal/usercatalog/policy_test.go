package usercatalog

import (
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

const testSrc = "test-refresh@2026-11-30"

// row is a copy of the embedded offering (its first zone) with the given
// zone and prices from testSrc ("" leaves a price unknown).
func row(t *testing.T, base *catalog.Catalog, provider, typ, region, zone, od, spot string) catalog.Offering {
	t.Helper()
	for i := range base.Offerings {
		o := base.Offerings[i]
		if o.Provider == provider && o.InstanceType == typ && o.Region == region {
			o.Zone = zone
			cur := o.OnDemand.Currency
			o.OnDemand, o.Spot = catalog.Price{Amount: money.Amount{Currency: cur}}, catalog.Price{Amount: money.Amount{Currency: cur}}
			if od != "" {
				o.OnDemand = catalog.Price{Known: true, Amount: money.Amount{Value: dec(od), Currency: cur}, Source: testSrc, AsOf: "2026-11-30"}
			}
			if spot != "" {
				o.Spot = catalog.Price{Known: true, Amount: money.Amount{Value: dec(spot), Currency: cur}, Source: testSrc, AsOf: "2026-11-30"}
			}
			return o
		}
	}
	t.Fatalf("no embedded %s %s %s", provider, typ, region)
	return catalog.Offering{}
}

func testSet(provider string, snap *catalog.Snapshot) *Set {
	return &Set{Snapshot: snap, Key: "test", Version: "v1", Meta: Meta{Provider: provider, FetchedAt: day,
		Sources: []catalog.Source{{ID: testSrc, Title: "test refresh", AsOf: "2026-11-30"}}}}
}

// prices lists the overlaid rows of a provider/type/region as
// "zone od(source) spot(source)", sorted.
func prices(c *catalog.Catalog, provider, typ, region string) string {
	p := func(x catalog.Price) string {
		if !x.Known {
			return "-"
		}
		return x.Value.String() + "(" + strings.SplitN(x.Source, "@", 2)[0] + " " + x.AsOf + ")"
	}
	var out []string
	for i := range c.Offerings {
		o := &c.Offerings[i]
		if o.Provider == provider && o.InstanceType == typ && o.Region == region {
			out = append(out, fmt.Sprintf("%s %s %s", o.Zone, p(o.OnDemand), p(o.Spot)))
		}
	}
	sort.Strings(out)
	return strings.Join(out, "; ")
}

// TestPartialRefreshPolicy: a kind the refresh has no row of keeps the
// catalog's price with its own source and date; a kind it covers is its
// alone, also where it leaves a listed offering without that price.
func TestPartialRefreshPolicy(t *testing.T) {
	base := embedded(t)
	const sky, cyc = "skypilot-v9 2026-07-09", "cyclenerd-gcp 2026-07-30"
	tests := []struct {
		name     string
		provider string
		offs     func() []catalog.Offering
		key      [3]string
		want     string
	}{
		{"gcp on-demand only: the spot price stays, dated apart", "gcp",
			func() []catalog.Offering {
				return []catalog.Offering{row(t, base, "gcp", "a2-highgpu-8g", "us-central1", "", "30", "")}
			},
			[3]string{"gcp", "a2-highgpu-8g", "us-central1"},
			" 30(test-refresh 2026-11-30) 15.42416(" + cyc + ")"},
		{"gcp covers spot in another region only: this region's spot price stays", "gcp",
			func() []catalog.Offering {
				return []catalog.Offering{row(t, base, "gcp", "a2-highgpu-8g", "us-central1", "", "30", ""), row(t, base, "gcp", "a2-highgpu-8g", "us-east4", "", "31", "9")}
			},
			[3]string{"gcp", "a2-highgpu-8g", "us-central1"},
			" 30(test-refresh 2026-11-30) 15.42416(" + cyc + ")"},
		{"gcp covers spot in this region for another type: this offering's spot price is gone", "gcp",
			func() []catalog.Offering {
				return []catalog.Offering{row(t, base, "gcp", "a2-highgpu-8g", "us-central1", "", "30", ""), row(t, base, "gcp", "g2-standard-4", "us-central1", "", "0.7", "0.3")}
			},
			[3]string{"gcp", "a2-highgpu-8g", "us-central1"},
			" 30(test-refresh 2026-11-30) -"},
		{"gcp spot only: the on-demand price stays", "gcp",
			func() []catalog.Offering {
				return []catalog.Offering{row(t, base, "gcp", "a2-highgpu-8g", "us-central1", "", "", "9")}
			},
			[3]string{"gcp", "a2-highgpu-8g", "us-central1"},
			" 29.38708(" + cyc + ") 9(test-refresh 2026-11-30)"},
		{"gcp both kinds: the feed's prices alone", "gcp",
			func() []catalog.Offering {
				return []catalog.Offering{row(t, base, "gcp", "a2-highgpu-8g", "us-central1", "", "30", "9")}
			},
			[3]string{"gcp", "a2-highgpu-8g", "us-central1"},
			" 30(test-refresh 2026-11-30) 9(test-refresh 2026-11-30)"},
		{"aws region row, no spot: each zone keeps its own spot price", "aws",
			func() []catalog.Offering {
				return []catalog.Offering{row(t, base, "aws", "p4d.24xlarge", "us-east-1", "", "22", "")}
			},
			[3]string{"aws", "p4d.24xlarge", "us-east-1"},
			"use1-az1 22(test-refresh 2026-11-30) 8.0087(" + sky + "); use1-az2 22(test-refresh 2026-11-30) 6.5323(" + sky + "); " +
				"use1-az4 22(test-refresh 2026-11-30) 13.9933(" + sky + "); use1-az6 22(test-refresh 2026-11-30) 11.787(" + sky + ")"},
		{"aws region row with spot: one row, the feed's", "aws",
			func() []catalog.Offering {
				return []catalog.Offering{row(t, base, "aws", "p4d.24xlarge", "us-east-1", "", "22", "7")}
			},
			[3]string{"aws", "p4d.24xlarge", "us-east-1"},
			" 22(test-refresh 2026-11-30) 7(test-refresh 2026-11-30)"},
		{"aws zone row, no spot: the same zone's spot price stays; other zones replaced", "aws",
			func() []catalog.Offering {
				return []catalog.Offering{row(t, base, "aws", "p4d.24xlarge", "us-east-1", "use1-az2", "22", "")}
			},
			[3]string{"aws", "p4d.24xlarge", "us-east-1"},
			"use1-az2 22(test-refresh 2026-11-30) 6.5323(" + sky + ")"},
		{"aws region on-demand row beside spot zone rows (a live fetch): every zone stays, the region's price in each", "aws",
			func() []catalog.Offering {
				return []catalog.Offering{row(t, base, "aws", "p4d.24xlarge", "us-east-1", "", "22", ""), row(t, base, "aws", "p4d.24xlarge", "us-east-1", "use1-az4", "", "7")}
			},
			[3]string{"aws", "p4d.24xlarge", "us-east-1"},
			"use1-az1 22(test-refresh 2026-11-30) -; use1-az2 22(test-refresh 2026-11-30) -; " +
				"use1-az4 22(test-refresh 2026-11-30) 7(test-refresh 2026-11-30); use1-az6 22(test-refresh 2026-11-30) -"},
		{"aws spot in a zone the catalog lacks (a zone name): the on-demand price all zones agree on", "aws",
			func() []catalog.Offering {
				return []catalog.Offering{row(t, base, "aws", "p4d.24xlarge", "us-east-1", "us-east-1a", "", "7")}
			},
			[3]string{"aws", "p4d.24xlarge", "us-east-1"},
			"us-east-1a 21.957642(" + sky + ") 7(test-refresh 2026-11-30)"},
		{"an offering the refresh does not list keeps everything", "aws",
			func() []catalog.Offering {
				return []catalog.Offering{row(t, base, "aws", "p4d.24xlarge", "us-east-1", "", "22", "7")}
			},
			[3]string{"gcp", "a2-highgpu-8g", "us-central1"},
			" 29.38708(" + cyc + ") 15.42416(" + cyc + ")"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			over, _, err := Overlay(base, []*Set{testSet(tt.provider, &catalog.Snapshot{Offerings: tt.offs()})})
			if err != nil {
				t.Fatal(err)
			}
			if got := prices(over, tt.key[0], tt.key[1], tt.key[2]); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// TestPartialRefreshPolicyOtherKinds: commitments (per model), spot bands and
// licences (per licence) follow the same rule for the provider/type/regions
// a set lists.
func TestPartialRefreshPolicyOtherKinds(t *testing.T) {
	base := embedded(t)
	gcpA2 := func() catalog.Offering { return row(t, base, "gcp", "a2-highgpu-8g", "us-central1", "", "30", "9") }
	commit := func(typ, model string) catalog.Commitment {
		return catalog.Commitment{Provider: "gcp", InstanceType: typ, Region: "us-central1", Model: model, Term: "1y", Payment: "monthly",
			Monthly: dec("1"), Currency: "USD", Source: testSrc, AsOf: "2026-11-30"}
	}
	band := func(typ string) catalog.SpotBand {
		return catalog.SpotBand{Provider: "aws", InstanceType: typ, Region: "us-east-1", Label: "5-10%", Low: 5, High: 10, SavingsPct: 70, Source: testSrc, AsOf: "2026-11-30"}
	}
	lic := func(typ string) catalog.LicenseSurcharge {
		return catalog.LicenseSurcharge{Provider: "azure", InstanceType: typ, Region: "eastus", License: "windows", PerHour: dec("5"), Currency: "USD", Source: testSrc, AsOf: "2026-11-30"}
	}
	count := func(c *catalog.Catalog, kind, provider, typ, region string) (n int, src string) {
		switch kind {
		case "commitment":
			for _, x := range c.Commitments {
				if x.Provider == provider && x.InstanceType == typ && x.Region == region {
					n, src = n+1, x.Source
				}
			}
		case "band":
			for _, x := range c.SpotBands {
				if x.Provider == provider && x.InstanceType == typ && x.Region == region {
					n, src = n+1, x.Source
				}
			}
		case "licence":
			for _, x := range c.Licenses {
				if x.Provider == provider && x.InstanceType == typ && x.Region == region {
					n, src = n+1, x.Source
				}
			}
		}
		return n, src
	}
	tests := []struct {
		name, provider string
		snap           func() *catalog.Snapshot
		kind           string
		key            [3]string
		wantN          int
		wantSrc        string
	}{
		{"no commitments in the set: the catalog's stay", "gcp",
			func() *catalog.Snapshot { return &catalog.Snapshot{Offerings: []catalog.Offering{gcpA2()}} },
			"commitment", [3]string{"gcp", "a2-highgpu-8g", "us-central1"}, 2, "cyclenerd-gcp@2026-07-30"},
		{"commitments of that model for another type: this one's are gone", "gcp",
			func() *catalog.Snapshot {
				return &catalog.Snapshot{Offerings: []catalog.Offering{gcpA2()}, Commitments: []catalog.Commitment{commit("g2-standard-4", "commitment")}}
			},
			"commitment", [3]string{"gcp", "a2-highgpu-8g", "us-central1"}, 0, ""},
		{"commitments of another model only: this one's stay", "gcp",
			func() *catalog.Snapshot {
				return &catalog.Snapshot{Offerings: []catalog.Offering{gcpA2()}, Commitments: []catalog.Commitment{commit("g2-standard-4", "flex-cud")}}
			},
			"commitment", [3]string{"gcp", "a2-highgpu-8g", "us-central1"}, 2, "cyclenerd-gcp@2026-07-30"},
		{"its own commitment replaces the catalog's", "gcp",
			func() *catalog.Snapshot {
				return &catalog.Snapshot{Offerings: []catalog.Offering{gcpA2()}, Commitments: []catalog.Commitment{commit("a2-highgpu-8g", "commitment")}}
			},
			"commitment", [3]string{"gcp", "a2-highgpu-8g", "us-central1"}, 1, testSrc},
		{"no bands in the set: the catalog's band stays", "aws",
			func() *catalog.Snapshot {
				return &catalog.Snapshot{Offerings: []catalog.Offering{row(t, base, "aws", "p4d.24xlarge", "us-east-1", "", "22", "7")}}
			},
			"band", [3]string{"aws", "p4d.24xlarge", "us-east-1"}, 1, "aws-spot-advisor@2025-06-28"},
		{"bands for another type: the listed type's band is gone", "aws",
			func() *catalog.Snapshot {
				return &catalog.Snapshot{Offerings: []catalog.Offering{row(t, base, "aws", "p4d.24xlarge", "us-east-1", "", "22", "7")},
					SpotBands: []catalog.SpotBand{band("p5.48xlarge")}}
			},
			"band", [3]string{"aws", "p4d.24xlarge", "us-east-1"}, 0, ""},
		{"bands in another region only: the listed type's band here stays", "aws",
			func() *catalog.Snapshot {
				west := band("p4d.24xlarge")
				west.Region = "us-west-2"
				return &catalog.Snapshot{Offerings: []catalog.Offering{row(t, base, "aws", "p4d.24xlarge", "us-east-1", "", "22", "7")},
					SpotBands: []catalog.SpotBand{west}}
			},
			"band", [3]string{"aws", "p4d.24xlarge", "us-east-1"}, 1, "aws-spot-advisor@2025-06-28"},
		{"bands for another type: an unlisted type's band stays", "aws",
			func() *catalog.Snapshot { return &catalog.Snapshot{SpotBands: []catalog.SpotBand{band("p5.48xlarge")}} },
			"band", [3]string{"aws", "p4d.24xlarge", "us-east-1"}, 1, "aws-spot-advisor@2025-06-28"},
		{"no windows licence in the set: the embedded one stays", "azure",
			func() *catalog.Snapshot {
				return &catalog.Snapshot{Offerings: []catalog.Offering{row(t, base, "azure", "Standard_ND96isr_H100_v5", "eastus", "", "98", "")}}
			},
			"licence", [3]string{"azure", "Standard_ND96isr_H100_v5", "eastus"}, 1, "infracost-azure@2025-12-01"},
		{"windows licences for another size: this one's is gone", "azure",
			func() *catalog.Snapshot {
				return &catalog.Snapshot{Offerings: []catalog.Offering{row(t, base, "azure", "Standard_ND96isr_H100_v5", "eastus", "", "98", "")},
					Licenses: []catalog.LicenseSurcharge{lic("Standard_ND96asr_v4")}}
			},
			"licence", [3]string{"azure", "Standard_ND96isr_H100_v5", "eastus"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			over, _, err := Overlay(base, []*Set{testSet(tt.provider, tt.snap())})
			if err != nil {
				t.Fatal(err)
			}
			n, src := count(over, tt.kind, tt.key[0], tt.key[1], tt.key[2])
			if n != tt.wantN || src != tt.wantSrc {
				t.Errorf("%d %ss from %q, want %d from %q", n, tt.kind, src, tt.wantN, tt.wantSrc)
			}
		})
	}
}
