package gcpbilling

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

func jsonNumber(s string) json.Number { return json.Number(s) }

// skuJSON writes a SKU in the recorded file's shape (gcp-catalog-skus.json):
// tests vary one field of it at a time.
func skuJSON(id, desc, group, usage, unit, currency, units string, nanos int64, regions ...string) string {
	rs, _ := json.Marshal(regions)
	return fmt.Sprintf(`{"name":"services/6F81-5844-456A/skus/%[1]s","skuId":%[1]q,"description":%[2]q,
"category":{"serviceDisplayName":"Compute Engine","resourceFamily":"Compute","resourceGroup":%[3]q,"usageType":%[4]q},
"serviceRegions":%[9]s,"pricingInfo":[{"pricingExpression":{"usageUnit":%[5]q,"displayQuantity":1,
"tieredRates":[{"startUsageAmount":0,"unitPrice":{"currencyCode":%[6]q,"units":%[7]q,"nanos":%[8]d}}]},
"currencyConversionRate":1,"effectiveTime":"2023-03-24T10:52:50.681Z"}]}`, id, desc, group, usage, unit, currency, units, nanos, rs)
}

// recordedA2 are the three recorded on-demand SKUs of a2-highgpu-8g
// (gcp-catalog-skus.json), with the usage type and description prefix given:
// the spot and commitment tests reuse the recorded prices under another usage
// type to check the sums, not to state a GCP spot or commitment price.
func recordedA2(usage, prefix, idSuffix string) []string {
	return []string{
		skuJSON("039F-D0DA-4055"+idSuffix, prefix+"Nvidia Tesla A100 GPU running in Americas", "GPU", usage, "h", "USD", "2", 933908000, "us-central1", "us-east1", "us-west1"),
		skuJSON("2922-40C5-B19F"+idSuffix, prefix+"A2 Instance Core running in Americas", "CPU", usage, "h", "USD", "0", 31611000, "us-central1", "us-east1", "us-west1"),
		skuJSON("2390-DCAF-DA38"+idSuffix, prefix+"A2 Instance Ram running in Americas", "RAM", usage, "GiBy.h", "USD", "0", 4237000, "us-central1", "us-east1", "us-west1"),
	}
}

func page(skus []string, next string) string {
	return `{"skus":[` + strings.Join(skus, ",") + `],"nextPageToken":"` + next + `"}`
}

var a2Spec = feeds.Spec{Provider: "gcp", InstanceType: "a2-highgpu-8g", Machine: feeds.Machine{GPU: "A100-SXM4-40GB", GPUCount: 8, VCPUs: 96, MemoryGiB: 680}}

func parse(t *testing.T, specs []feeds.Spec, body string, region string) *feeds.Result {
	t.Helper()
	res, err := New(specs).Parse(Format, strings.NewReader(body), feeds.ParseOptions{Source: "s", AsOf: "2023-08-14", Origin: "p.json", Region: region})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestSpotAndCommitmentSums(t *testing.T) {
	var skus []string
	skus = append(skus, recordedA2("OnDemand", "", "")...)
	skus = append(skus, recordedA2("Preemptible", "Spot Preemptible ", "-S")...)
	skus = append(skus, recordedA2("Commit1Yr", "Commitment v1: ", "-1")...)
	res := parse(t, []feeds.Spec{a2Spec}, page(skus, ""), "us-east1")
	if len(res.Offerings) != 1 {
		t.Fatalf("%d offerings, want 1 (us-east1 only): %+v", len(res.Offerings), res.Offerings)
	}
	o := res.Offerings[0]
	if o.Region != "us-east1" || !o.Spot.Known || !o.Spot.Amount.Equal(dec("29.38708")) || !o.OnDemand.Amount.Equal(dec("29.38708")) {
		t.Errorf("offering = %+v, want on-demand and spot 29.38708 in us-east1", o)
	}
	if len(res.Commitments) != 1 {
		t.Fatalf("commitments = %+v, want one 1y", res.Commitments)
	}
	c := res.Commitments[0]
	if c.Model != "commitment" || c.Term != "1y" || c.Payment != "monthly" || !c.Hourly.Equal(dec("29.38708")) || !c.Upfront.IsZero() || c.Currency != "USD" {
		t.Errorf("commitment = %+v, want 1y monthly-billed 29.38708 per hour, nothing upfront", c)
	}
}

func TestLeftOutReasons(t *testing.T) {
	base := recordedA2("OnDemand", "", "")
	for _, c := range []struct {
		name, sku, reason string
	}{
		{"other currency", skuJSON("X1", "Nvidia Tesla A100 GPU running in Americas", "GPU", "OnDemand", "h", "EUR", "2", 0, "europe-west4"), `price in "EUR"`},
		{"unknown unit", skuJSON("X2", "A2 Instance Ram running in Americas", "RAM", "OnDemand", "GiBy.mo", "USD", "1", 0, "us-west4"), `usage unit "GiBy.mo"`},
		{"negative", skuJSON("X3", "A2 Instance Core running in EMEA", "CPU", "OnDemand", "h", "USD", "-1", 0, "europe-west4"), "negative price"},
		{"zero", skuJSON("X4", "A2 Instance Core running in EMEA", "CPU", "OnDemand", "h", "USD", "0", 0, "europe-west4"), "zero price"},
		{"bad nanos", skuJSON("X5", "A2 Instance Core running in EMEA", "CPU", "OnDemand", "h", "USD", "1", -5, "europe-west4"), "opposite signs"},
		{"usage type", skuJSON("X6", "A2 Instance Core running in EMEA", "CPU", "Reserved", "h", "USD", "1", 0, "europe-west4"), `usage type "Reserved"`},
		{"group", skuJSON("X7", "N1 Predefined Instance Core running in EMEA", "N1Standard", "OnDemand", "h", "USD", "1", 0, "europe-west4"), `resource group "N1Standard"`},
		{"no region", skuJSON("X8", "A2 Instance Core running in EMEA", "CPU", "OnDemand", "h", "USD", "1", 0), "no service region"},
		{"duplicate", skuJSON("X9", "A2 Instance Core running in Americas", "CPU", "OnDemand", "h", "USD", "9", 0, "us-central1"), "kept that one"},
		{"unused", skuJSON("XA", "G2 Instance Core running in Americas", "CPU", "OnDemand", "h", "USD", "1", 0, "us-central1"), "no machine type given is priced with it"},
		{"no pricing", `{"skuId":"XB","description":"A2 Instance Core running in EMEA","category":{"resourceFamily":"Compute","resourceGroup":"CPU","usageType":"OnDemand"},"serviceRegions":["europe-west4"]}`, "no pricingInfo"},
	} {
		t.Run(c.name, func(t *testing.T) {
			res := parse(t, []feeds.Spec{a2Spec}, page(append(append([]string{}, base...), c.sku), ""), "")
			if len(res.LeftOut) != 1 || !strings.Contains(res.LeftOut[0].Reason, c.reason) {
				t.Fatalf("left out %v, want one with %q", res.LeftOut, c.reason)
			}
			if len(res.Offerings) != 3 {
				t.Fatalf("%d offerings, want the 3 recorded regions", len(res.Offerings))
			}
			for _, o := range res.Offerings {
				if !o.OnDemand.Amount.Equal(dec("29.38708")) {
					t.Errorf("%s: %s, want 29.38708: the bad SKU changed a price", o.Region, o.OnDemand.Amount)
				}
			}
		})
	}
}

func TestShapesLeftOut(t *testing.T) {
	ultra := feeds.Spec{Provider: "gcp", InstanceType: "a2-ultragpu-8g", Machine: feeds.Machine{GPU: "A100-SXM4-80GB", GPUCount: 8, VCPUs: 96, MemoryGiB: 1360, LocalDiskGB: 3000}}
	odd := feeds.Spec{Provider: "gcp", InstanceType: "x9-gpu-1g", Machine: feeds.Machine{GPU: "B300", GPUCount: 1, VCPUs: 8, MemoryGiB: 64}}
	noRAM := recordedA2("OnDemand", "", "")[:2]
	res := parse(t, []feeds.Spec{a2Spec, ultra, odd}, page(noRAM, ""), "us-central1")
	want := map[string]string{
		"a2-ultragpu-8g":            `no SKU of the "a100 80gb" GPU`,
		"x9-gpu-1g":                 `GPU "B300"`,
		"a2-highgpu-8g us-central1": "missing the ram SKU",
	}
	got := map[string]string{}
	for _, l := range res.LeftOut {
		got[l.What] = l.Reason
	}
	for what, reason := range want {
		if !strings.Contains(got[what], reason) {
			t.Errorf("%s left out for %q, want %q (all: %v)", what, got[what], reason, res.LeftOut)
		}
	}
	if len(res.Offerings) != 0 {
		t.Errorf("offerings %+v without a RAM price", res.Offerings)
	}
}

func TestParseErrors(t *testing.T) {
	for name, body := range map[string]string{
		"empty":      "",
		"not object": "[1,2]",
		"truncated":  `{"skus":[{"skuId":"A"`,
		"skus type":  `{"skus":{}}`,
		"bad sku":    `{"skus":[{"skuId":5}]}`,
	} {
		if _, err := New(nil).Parse(Format, strings.NewReader(body), feeds.ParseOptions{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := New(nil).Parse("aws-offer", strings.NewReader("{}"), feeds.ParseOptions{}); err == nil || !strings.Contains(err.Error(), "gcp-skus") {
		t.Errorf("wrong format: %v, want an error naming gcp-skus", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add(page(recordedA2("OnDemand", "", ""), "tok"))
	f.Add(page(recordedA2("Commit3Yr", "Commitment v1: ", ""), ""))
	f.Add(`{"skus":[]}{"skus":[],"nextPageToken":"x"}`)
	f.Fuzz(func(t *testing.T, s string) {
		res, err := New([]feeds.Spec{a2Spec}).Parse(Format, strings.NewReader(s), feeds.ParseOptions{Source: "s", AsOf: "2023-08-14"})
		if err != nil {
			return
		}
		for _, o := range res.Offerings {
			for _, p := range []feeds.Price{o.OnDemand, o.Spot} {
				if p.Known && !p.Amount.IsPositive() {
					t.Fatalf("known price %s is not positive", p.Amount)
				}
			}
		}
		for _, c := range res.Commitments {
			if !c.Hourly.IsPositive() {
				t.Fatalf("commitment %s", c.Hourly)
			}
		}
	})
}

func TestNeedsSpecs(t *testing.T) {
	var _ feeds.SpecTaker = New(nil)
	if _, err := New(nil).Parse(Format, strings.NewReader(page(nil, "")), feeds.ParseOptions{}); err == nil || !strings.Contains(err.Error(), "WithSpecs") {
		t.Errorf("Parse without shapes: %v, want an error saying to pass them", err)
	}
	im := New(nil).WithSpecs([]feeds.Spec{a2Spec})
	if res, err := im.Parse(Format, strings.NewReader(page(recordedA2("OnDemand", "", ""), "")), feeds.ParseOptions{Source: "s", AsOf: "2023-08-14"}); err != nil || len(res.Offerings) != 3 {
		t.Errorf("WithSpecs: %v, %d offerings, want 3", err, len(res.Offerings))
	}
}

// TestLocalSSD: a2-ultragpu-8g bundles 3000 GB of local SSD (the catalog's
// local_disk_gb). The SSD SKU here is priced like Google's generic one,
// 0.08 per GiB-month (a test value); the A100 80GB GPU at 3.92808 is derived
// from the catalog's Cyclenerd price (40.5503831232877 in us-central1) less
// the recorded A2 core and RAM prices and 3000 × 0.08 / 730, so the test
// checks that the importer sums the SSD as GB × monthly / 730 the way that
// price does, to its 13th decimal.
func TestLocalSSD(t *testing.T) {
	ultra := feeds.Spec{Provider: "gcp", InstanceType: "a2-ultragpu-8g", Machine: feeds.Machine{GPU: "A100-SXM4-80GB", GPUCount: 8, VCPUs: 96, MemoryGiB: 1360, LocalDiskGB: 3000}}
	a2 := recordedA2("OnDemand", "", "")
	skus := []string{
		skuJSON("G80", "Nvidia Tesla A100 80GB GPU running in Americas", "GPU", "OnDemand", "h", "USD", "3", 928080000, "us-central1"),
		a2[1], a2[2],
		strings.Replace(skuJSON("SSD", "SSD backed Local Storage", "LocalSSD", "OnDemand", "GiBy.mo", "USD", "0", 80000000, "us-central1"), `"Compute"`, `"Storage"`, 1),
		strings.Replace(skuJSON("SSD-S", "SSD backed Local Storage attached to Spot Preemptible VMs", "LocalSSD", "Preemptible", "GiBy.h", "USD", "0", 50000, "us-central1"), `"Compute"`, `"Storage"`, 1),
		strings.Replace(skuJSON("SSD-R", "SSD backed Local Storage attached to Calendar mode reservations running in Americas", "LocalSSD", "OnDemand", "GiBy.mo", "USD", "0", 90000000, "us-central1"), `"Compute"`, `"Storage"`, 1),
		strings.Replace(skuJSON("SSD-C3", "C3 Instance Local SSD running in Americas", "LocalSSD", "OnDemand", "GiBy.mo", "USD", "0", 90000000, "us-central1"), `"Compute"`, `"Storage"`, 1),
	}
	res := parse(t, []feeds.Spec{ultra}, page(skus, ""), "")
	if len(res.Offerings) != 1 {
		t.Fatalf("offerings %+v, left out %v", res.Offerings, res.LeftOut)
	}
	got := res.Offerings[0].OnDemand.Amount
	hand := dec("3.92808").Mul(dec("8")).Add(dec("0.031611").Mul(dec("96"))).Add(dec("0.004237").Mul(dec("1360")))
	if !hand.Equal(dec("40.221616")) {
		t.Fatalf("hand sum without SSD = %s", hand)
	}
	if d := got.Sub(dec("40.5503831232877")).Abs(); d.GreaterThan(dec("1e-13")) {
		t.Errorf("a2-ultragpu-8g = %s, want the catalog's 40.5503831232877 (40.221616 + 3000 × 0.08 / 730)", got)
	}
	if res.Offerings[0].Spot.Known {
		t.Errorf("spot %s known without spot GPU, core and RAM SKUs", res.Offerings[0].Spot.Amount)
	}
	reasons := map[string]string{}
	for _, l := range res.LeftOut {
		reasons[l.What] = l.Reason
	}
	for what, want := range map[string]string{
		"SSD backed Local Storage attached to Calendar mode reservations running in Americas (SSD-R)": "other than a VM",
		"C3 Instance Local SSD running in Americas (SSD-C3)":                                          "not the generic local SSD",
		"SSD backed Local Storage attached to Spot Preemptible VMs (SSD-S)":                           "no machine type given is priced with it",
	} {
		if !strings.Contains(reasons[what], want) {
			t.Errorf("%s: left out for %q, want %q", what, reasons[what], want)
		}
	}
}
