package azureretail

import (
	"fmt"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/money"
)

// GPUPrefix is how Azure's GPU sizes (the N-series: NC, ND, NG, NV) begin;
// without a list of sizes, the importer keeps every size that begins so.
const GPUPrefix = "Standard_N"

// HybridBenefit is the programme that waives the Windows licence price.
const HybridBenefit = "Azure Hybrid Benefit"

// termMonths are the reservation terms the API writes.
var termMonths = map[string]int32{"1 Year": 12, "3 Years": 36}

// terms as gpuscout writes them.
var termOf = map[string]string{"1 Year": "1y", "3 Years": "3y"}

type place struct{ size, region string }

type windowsPrice struct {
	place
	amount decimal.Decimal
	origin string
	what   string
}

// collector turns items into records.
type collector struct {
	currency     string
	sizes        map[string]bool // nil: every size beginning with GPUPrefix
	source, asOf string
	origin       string // the body's name; records are origin#...
	res          *feeds.Result
	n            int
	offers       map[place]*feeds.Offering
	order        []place
	linux        map[place]decimal.Decimal
	windows      []windowsPrice
	seen         map[string]string // size/region/kind -> origin of the item kept
}

func newCollector(currency string, sizes map[string]bool, source, asOf, origin string) *collector {
	return &collector{currency: currency, sizes: sizes, source: source, asOf: asOf, origin: origin, res: &feeds.Result{},
		offers: map[place]*feeds.Offering{}, linux: map[place]decimal.Decimal{}, seen: map[string]string{}}
}

// amount parses a price: positive, or a reason it is not a price.
func amount(n string) (decimal.Decimal, string) {
	if strings.TrimSpace(n) == "" {
		return decimal.Decimal{}, "no price"
	}
	d, err := money.ParseDecimal(n)
	switch {
	case err != nil:
		return d, fmt.Sprintf("price %q is not a number", n)
	case d.IsNegative():
		return d, fmt.Sprintf("negative price %s", d)
	case d.IsZero():
		return d, "a zero price is not a price"
	}
	return d, ""
}

// add turns one item into a record, or leaves it out with the reason.
func (c *collector) add(it *Item) {
	c.n++
	origin := fmt.Sprintf("%s#item/%d", c.origin, c.n)
	what := strings.TrimSpace(fmt.Sprintf("%s %s %s (%s)", it.ArmSKUName, it.ArmRegionName, it.MeterName, it.Type))
	leave := func(format string, a ...any) { c.res.Leave(origin, what, fmt.Sprintf(format, a...)) }
	size, region := it.ArmSKUName, it.ArmRegionName
	switch {
	case it.ServiceName != "Virtual Machines":
		leave("service %q is not Virtual Machines", it.ServiceName)
		return
	case size == "":
		leave("no armSkuName")
		return
	case c.sizes != nil && !c.sizes[size]:
		leave("not one of the catalog's Azure GPU sizes")
		return
	case c.sizes == nil && !strings.HasPrefix(size, GPUPrefix):
		leave("not an N-series (GPU) size")
		return
	case region == "":
		leave("no armRegionName")
		return
	case it.IsPrimaryMeterRegion != nil && !*it.IsPrimaryMeterRegion:
		leave("not the primary meter region (the same price under another meter)")
		return
	case it.CurrencyCode != c.currency:
		leave("price in %q, expected %s", it.CurrencyCode, c.currency)
		return
	}
	if t := strings.TrimSpace(it.TierMinimumUnits.String()); t != "" {
		if d, err := money.ParseDecimal(t); err != nil || !d.IsZero() {
			leave("a volume tier from %s units, not the list price", t)
			return
		}
	}
	n := it.UnitPrice.String()
	if n == "" {
		n = it.RetailPrice.String()
	}
	price, why := amount(n)
	if why != "" {
		leave("%s", why)
		return
	}
	windows := strings.Contains(it.ProductName, "Windows")
	spot := strings.HasSuffix(it.MeterName, " Spot") || strings.HasSuffix(it.SKUName, " Spot")
	lowPriority := strings.HasSuffix(it.MeterName, " Low Priority") || strings.HasSuffix(it.SKUName, " Low Priority")
	at := place{size, region}
	once := func(kind string) bool {
		k := size + "/" + region + "/" + kind
		if prev, dup := c.seen[k]; dup {
			leave("a second %s price for the size and region (meter %s): kept %s", kind, it.MeterID, prev)
			return false
		}
		c.seen[k] = origin
		return true
	}
	switch it.Type {
	case "DevTestConsumption":
		leave("Dev/Test pricing (only for Visual Studio subscribers' Dev/Test subscriptions)")
	case "Consumption":
		switch {
		case it.UnitOfMeasure != "1 Hour":
			leave("unit of measure %q, expected \"1 Hour\"", it.UnitOfMeasure)
		case lowPriority:
			leave("a Low Priority meter: Azure Batch low-priority nodes, not a VM one can start; Spot is the VM price")
		case windows && spot:
			leave("Windows Spot: the Windows licence is kept from pay-as-you-go prices only")
		case windows:
			if once("windows") {
				c.windows = append(c.windows, windowsPrice{at, price, origin, what})
			}
		case spot:
			if once("spot") {
				c.offer(at).Spot = feeds.Known(price, c.currency, c.source, c.asOf)
			}
		default:
			if !once("pay-as-you-go") {
				return
			}
			c.offer(at).OnDemand = feeds.Known(price, c.currency, c.source, c.asOf)
			c.linux[at] = price
			c.savingsPlans(it, at, origin, what)
		}
	case "Reservation":
		months, ok := termMonths[it.ReservationTerm]
		switch {
		case windows:
			leave("a Windows reservation: reservations price the VM without the licence")
		case !ok:
			leave("reservation term %q, expected \"1 Year\" or \"3 Years\"", it.ReservationTerm)
		case once("reservation " + it.ReservationTerm):
			// The price is the total for the term, whatever unitOfMeasure says
			// (Microsoft's sample writes "1 Hour" beside a 1-Year total of
			// 25007). Paid upfront, or in equal monthly instalments of the
			// same total.
			base := feeds.Commitment{Origin: origin, Provider: "azure", InstanceType: size, Region: region, Model: "reserved",
				Term: termOf[it.ReservationTerm], Currency: c.currency, Source: c.source, AsOf: c.asOf}
			up, mo := base, base
			up.Payment, up.Upfront = "all-upfront", price
			mo.Payment, mo.Monthly = "monthly", price.DivRound(decimal.NewFromInt32(months), 6)
			c.res.Commitments = append(c.res.Commitments, up)
			if mo.Monthly.IsPositive() { // a total under 36 millionths has no monthly instalment in 6 decimals
				c.res.Commitments = append(c.res.Commitments, mo)
			}
		}
	default:
		leave("price type %q is not Consumption or Reservation", it.Type)
	}
}

// savingsPlans adds the hourly savings-plan rates of a Linux pay-as-you-go item.
func (c *collector) savingsPlans(it *Item, at place, origin, what string) {
	for _, sp := range it.SavingsPlan {
		term, ok := termOf[sp.Term]
		if !ok {
			c.res.Leave(origin, what+" savings plan", fmt.Sprintf("savings-plan term %q, expected \"1 Year\" or \"3 Years\"", sp.Term))
			continue
		}
		n := sp.UnitPrice.String()
		if n == "" {
			n = sp.RetailPrice.String()
		}
		h, why := amount(n)
		if why != "" {
			c.res.Leave(origin, what+" savings plan "+sp.Term, why)
			continue
		}
		c.res.Commitments = append(c.res.Commitments, feeds.Commitment{Origin: origin, Provider: "azure", InstanceType: at.size, Region: at.region,
			Model: "savings-plan", Term: term, Payment: "monthly", Hourly: h, Currency: c.currency, Source: c.source, AsOf: c.asOf})
	}
}

func (c *collector) offer(at place) *feeds.Offering {
	if o, ok := c.offers[at]; ok {
		return o
	}
	o := &feeds.Offering{Origin: c.origin + "#" + at.size + "/" + at.region, Provider: "azure", InstanceType: at.size, Region: at.region,
		OnDemand: feeds.Unknown(c.currency), Spot: feeds.Unknown(c.currency)}
	c.offers[at] = o
	c.order = append(c.order, at)
	return o
}

// finish adds the offerings and the Windows surcharges (Windows less Linux).
func (c *collector) finish() *feeds.Result {
	for _, at := range c.order {
		c.res.Offerings = append(c.res.Offerings, *c.offers[at])
	}
	for _, w := range c.windows {
		linux, ok := c.linux[w.place]
		switch {
		case !ok:
			c.res.Leave(w.origin, w.what, "Windows price without a Linux pay-as-you-go price to subtract")
		case !w.amount.GreaterThan(linux):
			c.res.Leave(w.origin, w.what, fmt.Sprintf("Windows price %s is not above the Linux price %s", w.amount, linux))
		default:
			c.res.Licenses = append(c.res.Licenses, feeds.License{Origin: w.origin, Provider: "azure", InstanceType: w.size, Region: w.region,
				License: "windows", PerHour: w.amount.Sub(linux), Currency: c.currency, Source: c.source, AsOf: c.asOf, BringYourOwn: HybridBenefit})
		}
	}
	return c.res
}
