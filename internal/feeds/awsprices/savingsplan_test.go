package awsprices

import (
	"os"
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

func keepAllRates(*SPRate) (string, string) { return "", "" }

// TestSavingsPlanDocsExample: the fixture derived from AWS's documented
// example (testdata/SOURCE.md): one rate, 3.434 USD per hour, 1y no-upfront
// EC2 Instance Savings Plan for m5.large in us-east-1.
func TestSavingsPlanDocsExample(t *testing.T) {
	f, err := os.Open("testdata/savingsplan-docs-example.json")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sp, err := ParseSavingsPlan(f, SPOptions{Origin: "sp", Keep: keepAllRates})
	if err != nil {
		t.Fatal(err)
	}
	want := SPRate{PlanSKU: "T496KPMD8YQ8RZNC", Class: "ec2-instance", Term: "1y", Payment: "no-upfront", InstanceType: "m5.large", Region: "us-east-1",
		DiscountedSKU: "6C86BEPQVG73ZGGR", RateCode: "T496KPMD8YQ8RZNC.26PW7ZDSYZZ6YBTZ", Price: dec("3.434"), Currency: "USD"}
	if len(sp.Rates) != 1 || !sp.Rates[0].Price.Equal(want.Price) {
		t.Fatalf("rates %+v", sp.Rates)
	}
	got := sp.Rates[0]
	got.Price = want.Price
	if got != want || sp.PublicationDate.Format("2006-01-02") != "2015-04-09" {
		t.Errorf("rate %+v\nwant %+v", got, want)
	}
	res := &feeds.Result{}
	sp.Records("sp", "src", "2015-04-09", res)
	c := res.Commitments[0]
	if c.Model != "savings-plan" || !c.Hourly.Equal(dec("3.434")) || !c.Upfront.IsZero() || c.Class != "ec2-instance" || c.Origin != "sp#T496KPMD8YQ8RZNC/T496KPMD8YQ8RZNC.26PW7ZDSYZZ6YBTZ" {
		t.Errorf("commitment %+v", c)
	}
	// m5 is no GPU family: the default filter leaves the rate out.
	f.Seek(0, 0)
	sp, err = ParseSavingsPlan(f, SPOptions{Origin: "sp"})
	if err != nil || len(sp.Rates) != 0 || len(sp.LeftOut) != 1 || !strings.Contains(sp.LeftOut[0].Reason, "GPU") {
		t.Errorf("GPU filter: %v %+v %v", err, sp.Rates, sp.LeftOut)
	}
}

// spFile is a Savings Plans file with the given plan products and rates of plan SKU "P".
func spFile(region, family, term, option string, rates ...string) string {
	return `{"version":"1","publicationDate":"2026-11-01T00:00:00Z","regionCode":"` + region + `","products":[
{"sku":"P","productFamily":"` + family + `","serviceCode":"ComputeSavingsPlans","attributes":{"purchaseOption":"` + option + `","purchaseTerm":"` + term + `"}}],
"terms":{"savingsPlan":[{"sku":"P","leaseContractLength":{"duration":` + term[:1] + `,"unit":"year"},"rates":[` + strings.Join(rates, ",") + `]}]}}`
}

func spRateRow(code, usage, op, service, unit, price, currency string) string {
	return `{"discountedSku":"D` + code + `","discountedUsageType":"` + usage + `","discountedOperation":"` + op + `","discountedServiceCode":"` + service +
		`","rateCode":"P.` + code + `","unit":"` + unit + `","discountedRate":{"price":"` + price + `","currency":"` + currency + `"}}`
}

// TestSavingsPlanRates: which rates are prices of a Linux shared-tenancy
// GPU instance hour, and why the others are left out.
func TestSavingsPlanRates(t *testing.T) {
	body := spFile("us-east-1", "ComputeSavingsPlans", "3yr", "All Upfront",
		spRateRow("A", "BoxUsage:p5.48xlarge", "RunInstances", "AmazonEC2", "Hrs", "24.5", "USD"),
		spRateRow("B", "USE1-BoxUsage:g5.xlarge", "RunInstances", "AmazonEC2", "Hrs", "0.5", "USD"),
		spRateRow("C", "BoxUsage:p5.48xlarge", "RunInstances:0002", "AmazonEC2", "Hrs", "30", "USD"), // Windows
		spRateRow("D", "DedicatedUsage:p5.48xlarge", "RunInstances", "AmazonEC2", "Hrs", "30", "USD"),
		spRateRow("E", "USE1-Fargate-vCPU-Hours:perCPU", "", "AmazonECS", "Hrs", "0.03", "USD"),
		spRateRow("F", "BoxUsage:m5.large", "RunInstances", "AmazonEC2", "Hrs", "0.05", "USD"),
		spRateRow("G", "BoxUsage:g6.xlarge", "RunInstances", "AmazonEC2", "Hrs", "-0.5", "USD"),
		spRateRow("H", "BoxUsage:g6.2xlarge", "RunInstances", "AmazonEC2", "Hrs", "0.5", "EUR"),
		spRateRow("I", "BoxUsage:g6.4xlarge", "RunInstances", "AmazonEC2", "Lambda-GB-Second", "0.5", "USD"),
		spRateRow("J", "BoxUsage:g6.8xlarge", "RunInstances", "AmazonEC2", "Hrs", "0", "USD"),
		spRateRow("K", "BoxUsage:g6.12xlarge", "RunInstances", "AmazonEC2", "Hrs", "", "USD"),
	)
	sp, err := ParseSavingsPlan(strings.NewReader(body), SPOptions{Origin: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if len(sp.Rates) != 2 || sp.Rates[0].InstanceType != "g5.xlarge" || sp.Rates[1].InstanceType != "p5.48xlarge" {
		t.Fatalf("rates %+v", sp.Rates)
	}
	reasons := map[string]string{}
	for _, l := range sp.LeftOut {
		reasons[strings.TrimPrefix(l.Origin, "s#P/P.")] = l.Reason
	}
	for code, want := range map[string]string{"C": "Linux (RunInstances)", "D": "shared-tenancy", "E": "EC2 instance hours", "F": "not a GPU",
		"G": "negative price", "H": `price in "EUR"`, "I": `unit "Lambda-GB-Second"`, "J": "zero rate", "K": "not a number"} {
		if !strings.Contains(reasons[code], want) {
			t.Errorf("%s: reason %q, want %q", code, reasons[code], want)
		}
	}
	// All upfront: the rate × 26280 hours of a 3y term, paid upfront.
	res := &feeds.Result{}
	sp.Records("s", "src", "2026-11-01", res)
	for _, c := range res.Commitments {
		if c.InstanceType == "p5.48xlarge" && (!c.Upfront.Equal(dec("643860")) || !c.Hourly.IsZero() || c.Term != "3y" || c.Payment != "all-upfront" || c.Class != "compute") {
			t.Errorf("p5 commitment %+v", c)
		}
	}
}

func TestSavingsPlanErrors(t *testing.T) {
	for name, in := range map[string]string{
		"not json":        "{",
		"no terms":        `{"products":[]}`,
		"products late":   `{"terms":{"savingsPlan":[]},"products":[]}`,
		"lease mismatch":  strings.Replace(spFile("us-east-1", "ComputeSavingsPlans", "1yr", "No Upfront"), `"duration":1`, `"duration":3`, 1),
		"trailing":        `{"terms":{"savingsPlan":[]}} x`,
		"rates not array": `{"terms":{"savingsPlan":[{"sku":"P","rates":{}}]}}`,
	} {
		if _, err := ParseSavingsPlan(strings.NewReader(in), SPOptions{}); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func FuzzParseSavingsPlan(f *testing.F) {
	f.Add(spFile("us-east-1", "ComputeSavingsPlans", "1yr", "No Upfront", spRateRow("A", "BoxUsage:p5.48xlarge", "RunInstances", "AmazonEC2", "Hrs", "24.5", "USD")))
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSavingsPlan(strings.NewReader(s), SPOptions{Keep: keepAllRates})
		if err != nil {
			return
		}
		for _, r := range sp.Rates {
			if !r.Price.IsPositive() || r.Term == "" || r.Payment == "" || r.Class == "" || r.Region == "" {
				t.Fatalf("rate %+v", r)
			}
		}
	})
}
