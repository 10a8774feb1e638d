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

// Product is one EC2 product (SKU) of a price list with the prices read for it.
type Product struct {
	SKU            string
	InstanceType   string
	Location       string
	Region         string // the regionCode attribute, else the region code of Location, else ListOptions.Region
	OS             string
	Tenancy        string
	CapacityStatus string
	PreInstalledSw string
	MarketOption   string
	GPUs           string              // the "gpu" attribute: GPUs per instance; empty for instances without GPUs
	Currency       string              // of every price below: CNY in the China regions, USD elsewhere
	OnDemand       decimal.NullDecimal // per hour
	Reserved       []Reservation
}

// Reservation is one Reserved Instance offering.
type Reservation struct {
	OfferTermCode  string
	LeaseLength    string // "1yr" or "3yr"
	OfferingClass  string // "standard" or "convertible"
	PurchaseOption string // "No Upfront", "Partial Upfront", "All Upfront"
	Upfront        decimal.Decimal
	Hourly         decimal.Decimal
}

// Term returns the lease as gpuscout writes terms ("1y", "3y").
func (r Reservation) Term() string { return strings.TrimSuffix(r.LeaseLength, "r") }

// Payment returns the purchase option as gpuscout writes payments.
func (r Reservation) Payment() string {
	return strings.ToLower(strings.ReplaceAll(r.PurchaseOption, " ", "-"))
}

// PriceList is what a price list body yields: the products the filter
// kept, with their prices, and the rows left out.
type PriceList struct {
	PublicationDate time.Time // the body's publicationDate (the latest of a GetProducts page's elements); zero if none
	NextToken       string    // a GetProducts page's NextToken; "" on the last page
	Products        []Product // sorted by SKU
	LeftOut         []feeds.LeftOut
}

// ListOptions say how a price list is read.
type ListOptions struct {
	Origin string // names the body in LeftOut origins ("offer.json"); rows are Origin#SKU
	Region string // the region of products whose attributes name none the parser knows
	// Keep decides which instance products are read: a non-empty category
	// leaves the product out with reason (category groups the count of a
	// large file's left-out rows). Nil keeps every instance product.
	Keep func(p *Product) (category, reason string)
}

// Shape is the kind of body a price list is.
type Shape int

// The shapes ParsePriceList reads.
const (
	ShapeUnknown     Shape = iota
	ShapeOffer             // the bulk offer file: products + terms keyed by SKU
	ShapeElement           // one GetProducts PriceList element: product + terms
	ShapeGetProducts       // a GetProducts response: PriceList (elements as JSON strings) + NextToken
)

// String names the shape in messages ("a bulk offer file").
func (s Shape) String() string {
	names := [...]string{"an unknown body", "a bulk offer file", "a GetProducts price list element", "a GetProducts response"}
	if s < 0 || int(s) >= len(names) {
		return names[0]
	}
	return names[s]
}

// The leave categories of GPUFilter and of the terms.
const (
	catNoGPU     = "no GPU"
	catVariant   = "not Linux, shared tenancy, no software, used on-demand capacity"
	catNoRegion  = "location without a region code"
	catBadTerm   = "a term gpuscout cannot use"
	catNoPrice   = "no positive on-demand price"
	catZeroTerms = "a reservation with no fee"
)

// GPUFilter keeps what gpuscout prices: GPU instances (the gpu attribute),
// Linux, shared tenancy, no pre-installed software, used capacity sold
// on-demand (marketoption OnDemand: Capacity Blocks are not), in a known region.
// Attributes older files lack (marketoption, capacitystatus) are not required.
func GPUFilter(p *Product) (category, reason string) {
	switch {
	case p.GPUs == "" || p.GPUs == "0":
		return catNoGPU, "no GPU (the product has no gpu attribute); gpuscout lists GPU instances"
	case p.OS != "Linux" || p.Tenancy != "Shared" || p.PreInstalledSw != "NA" ||
		(p.CapacityStatus != "" && p.CapacityStatus != "Used") || (p.MarketOption != "" && p.MarketOption != "OnDemand"):
		market := ""
		if p.MarketOption != "" {
			market = ", market " + p.MarketOption
		}
		return catVariant, fmt.Sprintf("%s, %s tenancy, software %s, capacity %s%s: gpuscout prices Linux, shared tenancy, no software, used capacity",
			p.OS, p.Tenancy, p.PreInstalledSw, p.CapacityStatus, market)
	case p.Region == "":
		return catNoRegion, fmt.Sprintf("location %q has no region code in the feed", p.Location)
	}
	return "", ""
}

// ParsePriceList streams a bulk offer file, a GetProducts response or one
// GetProducts element from r. Memory holds the kept products only: a
// regional offer file of hundreds of MB is read in one pass. Terms whose
// price is not a non-negative number, whose unit is neither Hrs nor
// Quantity, or whose currency is not the region's are left out with a
// reason, never read as zero.
func ParsePriceList(r io.Reader, o ListOptions) (*PriceList, Shape, error) {
	b := &listBuilder{o: o, kept: map[string]*Product{}, left: newLeaver(o.Origin)}
	dec := json.NewDecoder(r)
	dec.UseNumber()
	shape, err := b.object(dec, 0)
	if err != nil {
		return nil, shape, fmt.Errorf("aws price list: %w", err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, shape, fmt.Errorf("aws price list: data after the top-level object")
	}
	if shape == ShapeUnknown {
		return nil, shape, fmt.Errorf("aws price list: neither a bulk offer file (products, terms), a GetProducts response (PriceList) nor a GetProducts element (product, terms)")
	}
	return b.finish(), shape, nil
}

type rawProduct struct {
	SKU        string `json:"sku"`
	Attributes struct {
		InstanceType   string `json:"instanceType"`
		Location       string `json:"location"`
		RegionCode     string `json:"regionCode"`
		OS             string `json:"operatingSystem"`
		Tenancy        string `json:"tenancy"`
		CapacityStatus string `json:"capacitystatus"`
		PreInstalledSw string `json:"preInstalledSw"`
		MarketOption   string `json:"marketoption"`
		GPU            string `json:"gpu"`
	} `json:"attributes"`
}

type rawTerm struct {
	OfferTermCode   string `json:"offerTermCode"`
	SKU             string `json:"sku"`
	PriceDimensions map[string]struct {
		Unit         string            `json:"unit"`
		PricePerUnit map[string]string `json:"pricePerUnit"`
	} `json:"priceDimensions"`
	TermAttributes struct {
		LeaseContractLength string
		OfferingClass       string
		PurchaseOption      string
	} `json:"termAttributes"`
}

// listBuilder collects a price list as the stream goes by.
type listBuilder struct {
	o         ListOptions
	kept      map[string]*Product
	left      *leaver
	pub       time.Time
	nextToken string
}

// object reads one top-level object (offer file, response or element).
func (b *listBuilder) object(dec *json.Decoder, depth int) (Shape, error) {
	if err := delim(dec, '{'); err != nil {
		return ShapeUnknown, err
	}
	shape := ShapeUnknown
	for dec.More() {
		key, err := keyOf(dec)
		if err != nil {
			return shape, err
		}
		switch {
		case key == "publicationDate":
			var s string
			if err := dec.Decode(&s); err != nil {
				return shape, fmt.Errorf("publicationDate: %w", err)
			}
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return shape, fmt.Errorf("publicationDate %q is not RFC 3339", s)
			}
			if t.After(b.pub) {
				b.pub = t
			}
		case key == "products" && (shape == ShapeUnknown || shape == ShapeOffer):
			shape = ShapeOffer
			if err := b.products(dec); err != nil {
				return shape, err
			}
		case key == "product" && shape == ShapeUnknown:
			shape = ShapeElement
			var p rawProduct
			if err := dec.Decode(&p); err != nil {
				return shape, fmt.Errorf("product: %w", err)
			}
			b.product(p)
		case key == "terms" && (shape == ShapeOffer || shape == ShapeElement):
			if err := b.terms(dec, shape); err != nil {
				return shape, err
			}
		case key == "terms":
			return shape, fmt.Errorf("terms before the products they price")
		case key == "PriceList" && depth == 0 && (shape == ShapeUnknown || shape == ShapeGetProducts):
			shape = ShapeGetProducts
			if err := b.elements(dec); err != nil {
				return shape, err
			}
		case key == "NextToken" && depth == 0:
			var s *string
			if err := dec.Decode(&s); err != nil {
				return shape, fmt.Errorf("NextToken: %w", err)
			}
			if s != nil {
				b.nextToken = *s
			}
		default:
			if err := skipValue(dec); err != nil {
				return shape, fmt.Errorf("%s: %w", key, err)
			}
		}
	}
	_, err := dec.Token() // '}'
	return shape, err
}

// products reads the offer file's products: {sku: product}.
func (b *listBuilder) products(dec *json.Decoder) error {
	if err := delim(dec, '{'); err != nil {
		return fmt.Errorf("products: %w", err)
	}
	for dec.More() {
		sku, err := keyOf(dec)
		if err != nil {
			return fmt.Errorf("products: %w", err)
		}
		var p rawProduct
		if err := dec.Decode(&p); err != nil {
			return fmt.Errorf("products: %s: %w", sku, err)
		}
		if p.SKU == "" {
			p.SKU = sku
		}
		b.product(p)
	}
	_, err := dec.Token()
	return err
}

// elements reads a GetProducts response's PriceList: each element a JSON string.
func (b *listBuilder) elements(dec *json.Decoder) error {
	if err := delim(dec, '['); err != nil {
		return fmt.Errorf("PriceList: %w", err)
	}
	for i := 0; dec.More(); i++ {
		var s string
		if err := dec.Decode(&s); err != nil {
			return fmt.Errorf("PriceList[%d]: %w", i, err)
		}
		ed := json.NewDecoder(strings.NewReader(s))
		ed.UseNumber()
		shape, err := b.object(ed, 1)
		if err != nil {
			return fmt.Errorf("PriceList[%d]: %w", i, err)
		}
		if shape != ShapeElement {
			return fmt.Errorf("PriceList[%d]: not a price list element (product, terms)", i)
		}
	}
	_, err := dec.Token()
	return err
}

// terms reads terms: {OnDemand|Reserved: {sku: {code: term}}} in an offer
// file, {OnDemand|Reserved: {code: term}} in an element.
func (b *listBuilder) terms(dec *json.Decoder, shape Shape) error {
	if err := delim(dec, '{'); err != nil {
		return fmt.Errorf("terms: %w", err)
	}
	for dec.More() {
		kind, err := keyOf(dec)
		if err != nil {
			return fmt.Errorf("terms: %w", err)
		}
		if kind != "OnDemand" && kind != "Reserved" {
			if err := skipValue(dec); err != nil {
				return fmt.Errorf("terms.%s: %w", kind, err)
			}
			continue
		}
		if shape == ShapeElement {
			var byCode map[string]rawTerm
			if err := dec.Decode(&byCode); err != nil {
				return fmt.Errorf("terms.%s: %w", kind, err)
			}
			b.termSet(kind, byCode)
			continue
		}
		if err := delim(dec, '{'); err != nil {
			return fmt.Errorf("terms.%s: %w", kind, err)
		}
		for dec.More() {
			sku, err := keyOf(dec)
			if err != nil {
				return fmt.Errorf("terms.%s: %w", kind, err)
			}
			if b.kept[sku] == nil {
				var skip struct{}
				if err := dec.Decode(&skip); err != nil {
					return fmt.Errorf("terms.%s.%s: %w", kind, sku, err)
				}
				continue
			}
			var byCode map[string]rawTerm
			if err := dec.Decode(&byCode); err != nil {
				return fmt.Errorf("terms.%s.%s: %w", kind, sku, err)
			}
			b.termSet(kind, byCode)
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	return err
}

// product decides whether an instance product is kept.
func (b *listBuilder) product(rp rawProduct) {
	a := rp.Attributes
	if a.InstanceType == "" || rp.SKU == "" {
		return // not an instance (storage, data transfer, hosts...)
	}
	p := &Product{SKU: rp.SKU, InstanceType: a.InstanceType, Location: a.Location, Region: a.RegionCode, OS: a.OS, Tenancy: a.Tenancy,
		CapacityStatus: a.CapacityStatus, PreInstalledSw: a.PreInstalledSw, MarketOption: a.MarketOption, GPUs: a.GPU}
	if p.Region == "" {
		p.Region = locations[p.Location]
	}
	if p.Region == "" {
		p.Region = b.o.Region
	}
	p.Currency = "USD"
	if strings.HasPrefix(p.Region, "cn-") {
		p.Currency = "CNY"
	}
	if b.o.Keep != nil {
		if cat, reason := b.o.Keep(p); cat != "" {
			b.left.leave(cat, b.o.Origin+"#"+p.SKU, p.InstanceType+" "+p.Location, reason)
			return
		}
	}
	b.kept[p.SKU] = p
}

// termSet applies the terms of one SKU (or element), in offer-code order.
func (b *listBuilder) termSet(kind string, byCode map[string]rawTerm) {
	codes := make([]string, 0, len(byCode))
	for k := range byCode {
		codes = append(codes, k)
	}
	sort.Strings(codes)
	for _, k := range codes {
		b.term(kind, k, byCode[k])
	}
}

// term reads one term's fees into its product, or leaves it out.
func (b *listBuilder) term(kind, key string, t rawTerm) {
	p := b.kept[t.SKU]
	if p == nil {
		return // a term of a product left out, or of one an excerpt's authors trimmed
	}
	what := p.InstanceType + " " + p.Region + " " + kind + " " + key
	bad := func(reason string) { b.left.leave(catBadTerm, b.o.Origin+"#"+p.SKU, what, reason) }
	var hourly, upfront decimal.NullDecimal
	dims := make([]string, 0, len(t.PriceDimensions))
	for k := range t.PriceDimensions {
		dims = append(dims, k)
	}
	sort.Strings(dims)
	for _, k := range dims {
		d := t.PriceDimensions[k]
		s, ok := d.PricePerUnit[p.Currency]
		if !ok || len(d.PricePerUnit) != 1 {
			have := make([]string, 0, len(d.PricePerUnit))
			for c := range d.PricePerUnit {
				have = append(have, c)
			}
			sort.Strings(have)
			bad(fmt.Sprintf("price in %s; the region's prices are in %s", strings.Join(have, ", "), p.Currency))
			return
		}
		v, err := money.ParseDecimal(s)
		if err != nil {
			bad(fmt.Sprintf("price %q is not a number", s))
			return
		}
		if v.IsNegative() {
			bad(fmt.Sprintf("negative price %s", s))
			return
		}
		var into *decimal.NullDecimal
		switch d.Unit {
		case "Hrs":
			into = &hourly
		case "Quantity":
			into = &upfront
		default:
			bad(fmt.Sprintf("unit %q; want Hrs (hourly fee) or Quantity (upfront fee)", d.Unit))
			return
		}
		if into.Valid {
			bad(fmt.Sprintf("two %s dimensions", d.Unit))
			return
		}
		*into = decimal.NullDecimal{Decimal: v, Valid: true}
	}
	if kind == "OnDemand" {
		switch {
		case !hourly.Valid || upfront.Valid:
			bad("an on-demand term needs one hourly fee and no upfront fee")
		case p.OnDemand.Valid:
			bad("a second on-demand term for the product")
		default:
			p.OnDemand = hourly
		}
		return
	}
	ta := t.TermAttributes
	r := Reservation{OfferTermCode: t.OfferTermCode, LeaseLength: ta.LeaseContractLength, OfferingClass: ta.OfferingClass,
		PurchaseOption: ta.PurchaseOption, Upfront: upfront.Decimal, Hourly: hourly.Decimal}
	if r.OfferTermCode == "" {
		r.OfferTermCode = key
	}
	switch {
	case r.LeaseLength != "1yr" && r.LeaseLength != "3yr":
		bad(fmt.Sprintf("lease %q; want 1yr or 3yr", r.LeaseLength))
	case r.OfferingClass != "standard" && r.OfferingClass != "convertible":
		bad(fmt.Sprintf("offering class %q; want standard or convertible", r.OfferingClass))
	case r.PurchaseOption != "No Upfront" && r.PurchaseOption != "Partial Upfront" && r.PurchaseOption != "All Upfront":
		bad(fmt.Sprintf("purchase option %q; want No Upfront, Partial Upfront or All Upfront", r.PurchaseOption))
	default:
		p.Reserved = append(p.Reserved, r)
	}
}

func (b *listBuilder) finish() *PriceList {
	pl := &PriceList{PublicationDate: b.pub, NextToken: b.nextToken}
	for _, p := range b.kept {
		sort.Slice(p.Reserved, func(i, j int) bool { return p.Reserved[i].OfferTermCode < p.Reserved[j].OfferTermCode })
		pl.Products = append(pl.Products, *p)
	}
	sort.Slice(pl.Products, func(i, j int) bool { return pl.Products[i].SKU < pl.Products[j].SKU })
	pl.LeftOut = b.left.done()
	return pl
}

// Records turns the price list into feed records cited by source as of
// asOf: an offering per product with a positive on-demand price, and a
// commitment per reservation with a fee.
func (pl *PriceList) Records(origin, source, asOf string, res *feeds.Result) {
	left := newLeaver(origin)
	for _, p := range pl.Products {
		o := origin + "#" + p.SKU
		what := p.InstanceType + " " + p.Location
		if !p.OnDemand.Valid || !p.OnDemand.Decimal.IsPositive() {
			left.leave(catNoPrice, o, what, "no positive on-demand price")
			continue
		}
		res.Offerings = append(res.Offerings, feeds.Offering{Origin: o, Provider: "aws", InstanceType: p.InstanceType, Region: p.Region,
			OnDemand: feeds.Known(p.OnDemand.Decimal, p.Currency, source, asOf)})
		for _, r := range p.Reserved {
			if r.Upfront.IsZero() && r.Hourly.IsZero() {
				left.leave(catZeroTerms, o, what+" "+r.OfferTermCode, "a reservation with no fee is not a price")
				continue
			}
			res.Commitments = append(res.Commitments, feeds.Commitment{Origin: o, Provider: "aws", InstanceType: p.InstanceType, Region: p.Region,
				Model: "reserved", Term: r.Term(), Payment: r.Payment(), Class: r.OfferingClass, Upfront: r.Upfront, Hourly: r.Hourly,
				Currency: p.Currency, Source: source, AsOf: asOf})
		}
	}
	res.LeftOut = append(res.LeftOut, pl.LeftOut...)
	res.LeftOut = append(res.LeftOut, left.done()...)
}
