package awsprices

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/money"
)

// The Savings Plans price file (AWS Billing docs, "Reading the service
// price list file for a Savings Plan"): products[] are the plans (sku,
// productFamily ComputeSavingsPlans | EC2InstanceSavingsPlans, attributes
// purchaseOption, purchaseTerm, ...), terms.savingsPlan[] their rates: per
// plan sku, rates[] of {discountedSku, discountedUsageType,
// discountedOperation, discountedServiceCode, rateCode, unit,
// discountedRate{price, currency}}, each the hourly price of an on-demand
// product (discountedSku) under the plan.

// SPRate is the hourly price of an EC2 instance type under a Savings Plan.
type SPRate struct {
	PlanSKU       string
	Class         string // "compute" (Compute Savings Plans) or "ec2-instance" (EC2 Instance Savings Plans)
	Term          string // "1y", "3y"
	Payment       string // "no-upfront", "partial-upfront", "all-upfront"
	InstanceType  string
	Region        string
	DiscountedSKU string // the on-demand product's SKU
	RateCode      string
	Price         decimal.Decimal // per hour
	Currency      string
}

// SavingsPlanFile is what a Savings Plans price file yields.
type SavingsPlanFile struct {
	PublicationDate time.Time
	Region          string // the file's regionCode
	Rates           []SPRate
	LeftOut         []feeds.LeftOut
}

// SPOptions say how a Savings Plans file is read.
type SPOptions struct {
	Origin string // rows are Origin#planSKU/rateCode
	Region string // where the file names none
	// Keep decides which Linux shared-tenancy EC2 rates are kept (nil: GPUFamily of the instance type).
	Keep func(r *SPRate) (category, reason string)
}

type spProduct struct {
	SKU           string `json:"sku"`
	ProductFamily string `json:"productFamily"`
	Attributes    struct {
		PurchaseOption string `json:"purchaseOption"`
		PurchaseTerm   string `json:"purchaseTerm"`
		InstanceType   string `json:"instanceType"` // the family of an EC2 Instance Savings Plan
	} `json:"attributes"`
}

type spRate struct {
	DiscountedSKU         string `json:"discountedSku"`
	DiscountedUsageType   string `json:"discountedUsageType"`
	DiscountedOperation   string `json:"discountedOperation"`
	DiscountedServiceCode string `json:"discountedServiceCode"`
	RateCode              string `json:"rateCode"`
	Unit                  string `json:"unit"`
	DiscountedRate        struct {
		Price    string `json:"price"`
		Currency string `json:"currency"`
	} `json:"discountedRate"`
}

// The leave categories of Savings Plans rates.
const (
	catSPOther   = "not a Linux shared-tenancy EC2 instance hour"
	catSPBadRate = "a rate gpuscout cannot use"
	catSPPlan    = "a rate of a plan the file does not describe"
	catNotGPU    = "not a GPU instance family"
)

// GPUFamily keeps the instance types of AWS's GPU families (p* and g*:
// p3, p4d, p5, g4dn, g5, g6, ...), for formats that carry no gpu attribute.
func GPUFamily(instanceType string) (category, reason string) {
	if instanceType != "" && (instanceType[0] == 'p' || instanceType[0] == 'g') && strings.Contains(instanceType, ".") {
		return "", ""
	}
	return catNotGPU, "not a GPU instance family (p*, g*)"
}

// ParseSavingsPlan streams a Savings Plans price file. Rates of other
// services, tenancies, operating systems (discountedOperation other than
// RunInstances) and units are left out, as are rates whose price is not a
// non-negative number or whose currency is not the region's (counted, never
// read as zero).
func ParseSavingsPlan(r io.Reader, o SPOptions) (*SavingsPlanFile, error) {
	dec := json.NewDecoder(r)
	p := &spParser{o: o, plans: map[string]spProduct{}, left: newLeaver(o.Origin), f: &SavingsPlanFile{Region: o.Region}}
	if p.o.Keep == nil {
		p.o.Keep = func(r *SPRate) (string, string) { return GPUFamily(r.InstanceType) }
	}
	if err := p.top(dec); err != nil {
		return nil, fmt.Errorf("aws savings plan: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("aws savings plan: data after the top-level object")
	}
	if !p.sawTerms {
		return nil, fmt.Errorf("aws savings plan: no terms.savingsPlan: not a Savings Plans price file")
	}
	sort.SliceStable(p.f.Rates, func(i, j int) bool {
		a, b := p.f.Rates[i], p.f.Rates[j]
		if a.InstanceType != b.InstanceType {
			return a.InstanceType < b.InstanceType
		}
		return a.PlanSKU < b.PlanSKU
	})
	p.f.LeftOut = p.left.done()
	return p.f, nil
}

type spParser struct {
	o        SPOptions
	plans    map[string]spProduct
	left     *leaver
	f        *SavingsPlanFile
	sawTerms bool
}

func (p *spParser) top(dec *json.Decoder) error {
	if err := delim(dec, '{'); err != nil {
		return err
	}
	for dec.More() {
		key, err := keyOf(dec)
		if err != nil {
			return err
		}
		switch key {
		case "publicationDate":
			var s string
			if err := dec.Decode(&s); err != nil {
				return fmt.Errorf("publicationDate: %w", err)
			}
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return fmt.Errorf("publicationDate %q is not RFC 3339", s)
			}
			p.f.PublicationDate = t
		case "regionCode":
			if err := dec.Decode(&p.f.Region); err != nil {
				return fmt.Errorf("regionCode: %w", err)
			}
		case "products":
			if p.sawTerms {
				return fmt.Errorf("products after the terms that use them")
			}
			if err := delim(dec, '['); err != nil {
				return fmt.Errorf("products: %w", err)
			}
			for i := 0; dec.More(); i++ {
				var sp spProduct
				if err := dec.Decode(&sp); err != nil {
					return fmt.Errorf("products[%d]: %w", i, err)
				}
				p.plans[sp.SKU] = sp
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
		case "terms":
			p.sawTerms = true
			if err := p.terms(dec); err != nil {
				return err
			}
		default:
			if err := skipValue(dec); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
		}
	}
	_, err := dec.Token()
	return err
}

func (p *spParser) terms(dec *json.Decoder) error {
	if err := delim(dec, '{'); err != nil {
		return fmt.Errorf("terms: %w", err)
	}
	for dec.More() {
		kind, err := keyOf(dec)
		if err != nil {
			return err
		}
		if kind != "savingsPlan" {
			if err := skipValue(dec); err != nil {
				return fmt.Errorf("terms.%s: %w", kind, err)
			}
			continue
		}
		if err := delim(dec, '['); err != nil {
			return fmt.Errorf("terms.savingsPlan: %w", err)
		}
		for i := 0; dec.More(); i++ {
			if err := p.term(dec); err != nil {
				return fmt.Errorf("terms.savingsPlan[%d]: %w", i, err)
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// term reads one plan's term, streaming its rates (a Compute Savings Plan
// has one for every instance type, Fargate and Lambda price of the region).
func (p *spParser) term(dec *json.Decoder) error {
	if err := delim(dec, '{'); err != nil {
		return err
	}
	var sku string
	var early []spRate // rates before the term's sku (JSON keys have no order)
	var lease struct {
		Duration json.Number `json:"duration"`
		Unit     string      `json:"unit"`
	}
	for dec.More() {
		key, err := keyOf(dec)
		if err != nil {
			return err
		}
		switch key {
		case "sku":
			if err := dec.Decode(&sku); err != nil {
				return fmt.Errorf("sku: %w", err)
			}
		case "leaseContractLength":
			if err := dec.Decode(&lease); err != nil {
				return fmt.Errorf("leaseContractLength: %w", err)
			}
		case "rates":
			if err := delim(dec, '['); err != nil {
				return fmt.Errorf("rates: %w", err)
			}
			for i := 0; dec.More(); i++ {
				var r spRate
				if err := dec.Decode(&r); err != nil {
					return fmt.Errorf("rates[%d]: %w", i, err)
				}
				if sku == "" {
					early = append(early, r)
					continue
				}
				p.rate(sku, r)
			}
			if _, err := dec.Token(); err != nil {
				return err
			}
		default:
			if err := skipValue(dec); err != nil {
				return fmt.Errorf("%s: %w", key, err)
			}
		}
	}
	for _, r := range early {
		p.rate(sku, r)
	}
	if plan, ok := p.plans[sku]; ok && lease.Unit == "year" && lease.Duration.String()+"yr" != plan.Attributes.PurchaseTerm {
		return fmt.Errorf("plan %s: lease %s %s but purchaseTerm %q", sku, lease.Duration, lease.Unit, plan.Attributes.PurchaseTerm)
	}
	_, err := dec.Token()
	return err
}

// rate keeps or leaves one rate of plan sku.
func (p *spParser) rate(sku string, r spRate) {
	origin := p.o.Origin + "#" + sku + "/" + r.RateCode
	what := r.DiscountedUsageType + " " + r.DiscountedOperation
	usage, instanceType, _ := strings.Cut(r.DiscountedUsageType, ":")
	if i := strings.LastIndexByte(usage, '-'); i >= 0 {
		usage = usage[i+1:] // "USE1-BoxUsage" is BoxUsage in us-east-1
	}
	if r.DiscountedServiceCode != "AmazonEC2" || usage != "BoxUsage" || r.DiscountedOperation != "RunInstances" {
		p.left.leave(catSPOther, origin, what, fmt.Sprintf("%s %s %s: gpuscout prices Linux (RunInstances) shared-tenancy (BoxUsage) EC2 instance hours",
			r.DiscountedServiceCode, r.DiscountedUsageType, r.DiscountedOperation))
		return
	}
	plan, ok := p.plans[sku]
	if !ok {
		p.left.leave(catSPPlan, origin, what, fmt.Sprintf("plan %s is not among the file's products", sku))
		return
	}
	class := map[string]string{"ComputeSavingsPlans": "compute", "EC2InstanceSavingsPlans": "ec2-instance"}[plan.ProductFamily]
	term := map[string]string{"1yr": "1y", "3yr": "3y"}[plan.Attributes.PurchaseTerm]
	payment := map[string]string{"No Upfront": "no-upfront", "Partial Upfront": "partial-upfront", "All Upfront": "all-upfront"}[plan.Attributes.PurchaseOption]
	if class == "" || term == "" || payment == "" {
		p.left.leave(catSPPlan, origin, what, fmt.Sprintf("plan %s: family %q, term %q, purchase option %q; want ComputeSavingsPlans or EC2InstanceSavingsPlans, 1yr or 3yr, No/Partial/All Upfront",
			sku, plan.ProductFamily, plan.Attributes.PurchaseTerm, plan.Attributes.PurchaseOption))
		return
	}
	out := SPRate{PlanSKU: sku, Class: class, Term: term, Payment: payment, InstanceType: instanceType, Region: p.f.Region,
		DiscountedSKU: r.DiscountedSKU, RateCode: r.RateCode, Currency: r.DiscountedRate.Currency}
	if cat, reason := p.o.Keep(&out); cat != "" {
		p.left.leave(cat, origin, what, reason)
		return
	}
	want := "USD"
	if strings.HasPrefix(out.Region, "cn-") {
		want = "CNY"
	}
	v, err := money.ParseDecimal(r.DiscountedRate.Price)
	switch {
	case r.Unit != "Hrs":
		p.left.leave(catSPBadRate, origin, what, fmt.Sprintf("unit %q; want Hrs", r.Unit))
	case out.Region == "":
		p.left.leave(catSPBadRate, origin, what, "the file names no region (regionCode) and none was given")
	case out.Currency != want:
		p.left.leave(catSPBadRate, origin, what, fmt.Sprintf("price in %q; the region's prices are in %s", out.Currency, want))
	case err != nil:
		p.left.leave(catSPBadRate, origin, what, fmt.Sprintf("price %q is not a number", r.DiscountedRate.Price))
	case v.IsNegative():
		p.left.leave(catSPBadRate, origin, what, fmt.Sprintf("negative price %s", r.DiscountedRate.Price))
	case v.IsZero():
		p.left.leave(catSPBadRate, origin, what, "a zero rate is not a price")
	default:
		out.Price = v
		p.f.Rates = append(p.f.Rates, out)
	}
}

// termHours is the hours of a 1y and a 3y term (365 and 3×365 days, as
// AWS bills terms).
var termHours = map[string]int64{"1y": 8760, "3y": 26280}

// Records turns the rates into savings-plan commitments for one instance
// running every hour of the term: an all-upfront plan is its rate × the
// term's hours paid upfront; otherwise the rate is the hourly fee (how much
// of a partial-upfront plan is paid upfront is the buyer's choice, not a
// price, so its rate is kept hourly: the same total, paid later).
func (f *SavingsPlanFile) Records(origin, source, asOf string, res *feeds.Result) {
	for _, r := range f.Rates {
		c := feeds.Commitment{Origin: origin + "#" + r.PlanSKU + "/" + r.RateCode, Provider: "aws",
			InstanceType: r.InstanceType, Region: r.Region, Model: "savings-plan", Term: r.Term, Payment: r.Payment, Class: r.Class,
			Hourly: r.Price, Currency: r.Currency, Source: source, AsOf: asOf}
		if r.Payment == "all-upfront" {
			c.Upfront, c.Hourly = r.Price.Mul(decimal.NewFromInt(termHours[r.Term])), decimal.Zero
		}
		res.Commitments = append(res.Commitments, c)
	}
	res.LeftOut = append(res.LeftOut, f.LeftOut...)
}
