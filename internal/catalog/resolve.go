package catalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/gpuscout/gpuscout/internal/money"
)

// This file is the one place that decides which offering a reference names,
// which zone's spot price an offering is quoted at, and which interruption
// band its spot estimate uses. offers, cost, spot and advise all ask here, so
// they report the same price for the same offering.

// OfferingRef is an offering as users write it: provider/instance[/region].
type OfferingRef struct {
	Provider, InstanceType, Region string
}

// String renders the reference as it was written.
func (r OfferingRef) String() string {
	s := r.Provider + "/" + r.InstanceType
	if r.Region != "" {
		s += "/" + r.Region
	}
	return s
}

// ParseOfferingRef reads provider/instance[/region], e.g. aws/p4d.24xlarge/us-east-1.
func ParseOfferingRef(s string) (OfferingRef, error) {
	parts := strings.Split(strings.TrimSpace(s), "/")
	if len(parts) < 2 || len(parts) > 3 || parts[0] == "" || parts[1] == "" || (len(parts) == 3 && parts[2] == "") {
		return OfferingRef{}, fmt.Errorf("%q: want provider/instance[/region], e.g. aws/p4d.24xlarge or aws/p4d.24xlarge/us-east-1", s)
	}
	r := OfferingRef{Provider: parts[0], InstanceType: parts[1]}
	if len(parts) == 3 {
		r.Region = parts[2]
	}
	return r, nil
}

// Resolve checks a reference against the catalog and returns it with the
// provider's canonical name and the regions it names (aliases such as 华东1
// resolved; all regions when none is given). Errors name what is known.
func (c *Catalog) Resolve(r OfferingRef) (provider string, regions []string, err error) {
	p, err := c.LookupProvider(r.Provider)
	if err != nil {
		return "", nil, fmt.Errorf("%s: %w", r, err)
	}
	var types []string
	found := false
	for i := range c.Offerings {
		o := &c.Offerings[i]
		if o.Provider != p.Name {
			continue
		}
		types = append(types, o.InstanceType)
		found = found || strings.EqualFold(o.InstanceType, r.InstanceType)
	}
	if !found {
		slices.Sort(types)
		return "", nil, fmt.Errorf("%s: %s has no instance type %q; closest: %s", r, p.Name, r.InstanceType, strings.Join(Closest(r.InstanceType, slices.Compact(types), 5), ", "))
	}
	if r.Region != "" {
		if regions = c.ResolveRegion(r.Region); len(regions) == 0 {
			return "", nil, fmt.Errorf("%s: unknown region %q: the catalog lists no offering there; %s's closest: %s", r, r.Region, p.Name, strings.Join(Closest(r.Region, c.Regions(p.Name), 5), ", "))
		}
	}
	return p.Name, regions, nil
}

// SelectOffering narrows q to the offering spec names
// (provider/instance[/region]): its provider, its instance type and, where
// a region is given, the regions that name resolves to. The cost and spot
// commands, the API and the dashboard select an --offering here. Errors
// name what the catalog knows.
func (c *Catalog) SelectOffering(q *Query, spec string) error {
	ref, err := ParseOfferingRef(spec)
	if err != nil {
		return err
	}
	provider, regions, err := c.Resolve(ref)
	if err != nil {
		return err
	}
	q.Providers, q.InstanceTypes = []string{provider}, []string{ref.InstanceType}
	if regions != nil {
		if err := c.soldIn(provider, ref, regions); err != nil {
			return err
		}
		q.Regions = regions
	}
	return nil
}

// soldIn checks that the catalog lists ref's instance type in one of
// regions, and otherwise names the regions it is listed in.
func (c *Catalog) soldIn(provider string, ref OfferingRef, regions []string) error {
	var where []string
	for i := range c.Offerings {
		o := &c.Offerings[i]
		if o.Provider != provider || !strings.EqualFold(o.InstanceType, ref.InstanceType) {
			continue
		}
		if slices.Contains(regions, o.Region) {
			return nil
		}
		where = append(where, o.Region)
	}
	slices.Sort(where)
	where = slices.Compact(where)
	list := strings.Join(where, ", ")
	if len(where) > 20 {
		list = strings.Join(where[:20], ", ") + fmt.Sprintf(" and %d more", len(where)-20)
	}
	return fmt.Errorf("%s: %s lists %s in %d region(s), not in %s: %s", ref, provider, ref.InstanceType, len(where), ref.Region, list)
}

// NotOnSaleError is a reference to an instance type the catalog knows that
// matches no offering on sale (each of its offerings retired, or none in the
// region).
type NotOnSaleError struct{ Spec string }

func (e *NotOnSaleError) Error() string {
	return fmt.Sprintf("%q matches no offering on sale (a retired size, or not sold in that region?)", e.Spec)
}

// FindOffering is the one offering spec (provider/instance[/region]) names:
// in its region, or, where none is given, in the region where it is
// cheapest on demand, as offers lists it.
func (c *Catalog) FindOffering(spec string, fx *money.FX, cur money.Currency) (*Offering, error) {
	q := Query{FX: fx, Currency: cur}
	if err := c.SelectOffering(&q, spec); err != nil {
		return nil, err
	}
	rows, err := c.Query(q)
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, &NotOnSaleError{Spec: spec}
	}
	return rows[0].Offering, nil
}

// SpotQuote is the spot price an offering is quoted at everywhere: the
// lowest spot price among the zones of its provider, instance type and
// region (a user launches in whichever zone is cheapest), with that zone.
type SpotQuote struct {
	Price    Price
	Zone     string    // "" where the region has one spot price
	Offering *Offering // the zone's offering the price belongs to; nil when unknown
}

// spotIndex finds an offering's region siblings: the offerings of its
// provider, instance type and region. It is built on first use and rebuilt
// when offerings were added (a price file). Where the offerings are in key
// order (CompareKeys), as the embedded ones are, a region's offerings are
// one run: building is one pass that checks the order, and a binary search
// finds a run, until so many were searched (a query of every offering)
// that a map of the runs pays; otherwise each offering links to its
// region's next one.
type spotIndex struct {
	mu       sync.Mutex
	built    bool
	n        int // len(Offerings) when built
	sorted   bool
	searches int              // sorted: binary searches so far
	first    map[regionID]int // a region's first offering (sorted: after mapAfter searches)
	next     []int            // unsorted: an offering's region's next offering, -1 after the last
}

// mapAfter is the number of binary searches after which the runs get a map:
// building it costs about as much as that many searches.
const mapAfter = 512

// regionID is an offering's provider, instance type and region.
type regionID struct{ provider, instanceType, region string }

func regionOf(o *Offering) regionID { return regionID{o.Provider, o.InstanceType, o.Region} }

func cmpRegion(o *Offering, k regionID) int {
	if c := strings.Compare(o.Provider, k.provider); c != 0 {
		return c
	}
	if c := strings.Compare(o.InstanceType, k.instanceType); c != 0 {
		return c
	}
	return strings.Compare(o.Region, k.region)
}

func (idx *spotIndex) build(offs []Offering) {
	idx.built, idx.n, idx.sorted, idx.searches, idx.first, idx.next = true, len(offs), true, 0, nil, nil // idx.mu is held
	for i := 1; i < len(offs) && idx.sorted; i++ {
		idx.sorted = cmpRegion(&offs[i], regionOf(&offs[i-1])) >= 0
	}
	if idx.sorted {
		return
	}
	idx.first = make(map[regionID]int, len(offs))
	idx.next = make([]int, len(offs))
	for i := len(offs) - 1; i >= 0; i-- {
		k := regionOf(&offs[i])
		idx.next[i] = -1
		if j, ok := idx.first[k]; ok {
			idx.next[i] = j
		}
		idx.first[k] = i
	}
}

// mapRuns gives sorted offerings' runs a map.
func (idx *spotIndex) mapRuns(offs []Offering) {
	idx.first = map[regionID]int{}
	for i := range offs {
		if i == 0 || cmpRegion(&offs[i], regionOf(&offs[i-1])) != 0 {
			idx.first[regionOf(&offs[i])] = i
		}
	}
}

// eachSibling calls fn with each of o's region siblings (o among them, if
// it is one of c's offerings), in slice order. (A callback, not an
// iterator: a returned closure would be allocated on every call.)
func (c *Catalog) eachSibling(o *Offering, fn func(z *Offering)) {
	idx := &c.spotIdx
	idx.mu.Lock()
	if !idx.built || idx.n != len(c.Offerings) {
		idx.build(c.Offerings)
	}
	if idx.sorted && idx.first == nil {
		if idx.searches++; idx.searches > mapAfter {
			idx.mapRuns(c.Offerings)
		}
	}
	sorted, first, next := idx.sorted, idx.first, idx.next
	idx.mu.Unlock()
	offs, k := c.Offerings, regionOf(o)
	if !sorted {
		for i, ok := first[k]; ok && i >= 0; i = next[i] {
			fn(&offs[i])
		}
		return
	}
	var i int
	if first != nil {
		var ok bool
		if i, ok = first[k]; !ok {
			return
		}
	} else {
		i = sort.Search(len(offs), func(i int) bool { return cmpRegion(&offs[i], k) >= 0 })
	}
	for ; i < len(offs) && cmpRegion(&offs[i], k) == 0; i++ {
		fn(&offs[i])
	}
}

// SpotQuoteFor returns the spot quote of o's instance type in o's region.
// Zones are compared in their own currency (a region prices in one).
func (c *Catalog) SpotQuoteFor(o *Offering) SpotQuote {
	var q SpotQuote
	c.eachSibling(o, func(z *Offering) {
		if !z.Spot.Known || z.GPU != o.GPU {
			return
		}
		if q.Offering == nil || (z.Spot.Currency == q.Price.Currency && z.Spot.Value.LessThan(q.Price.Value)) {
			q = SpotQuote{Price: z.Spot, Zone: z.Zone, Offering: z}
		}
	})
	return q
}

// DefaultSpotBand is the monthly interruption band assumed where neither the
// user nor AWS's Spot Advisor gives one. gpuscout lists GPU instances only, so
// it is derived from the Advisor's bands of GPU instance types, not from its
// all-types global average ("<10%"): in the Advisor data at hand
// (aws-spot-advisor@2025-06-28, shared/data/price-feeds/
// aws-spot-advisor-excerpt.json: p4d.24xlarge, p4de.24xlarge, p5.48xlarge,
// g5.xlarge, g5.12xlarge and g5.48xlarge, Linux, in us-east-1, us-west-2 and
// eu-west-1), 10 of the 16 GPU type-region pairs are ">20%", 1 is "15-20%",
// 2 are "10-15%", 1 is "5-10%" and 2 are "<5%": ">20%" is both the most
// common band and the median. It is an assumption, and every output that
// uses it says so (BandChoice.Assumed).
const DefaultSpotBand = ">20%"

// DefaultSpotBandBasis says where DefaultSpotBand comes from, for outputs.
const DefaultSpotBandBasis = "the band of most GPU types in AWS Spot Advisor data: 10 of 16 GPU type-region pairs >20% a month, aws-spot-advisor@2025-06-28"

// BandChoice is the monthly interruption band a spot estimate uses for an
// offering, and where it comes from.
type BandChoice struct {
	Label  string
	Origin string
	// Assumed is true when the band is not a figure for this offering (the
	// default, or AWS's average applied to another provider): every output
	// that uses it says so.
	Assumed bool
}

// SpotBandChoice decides the band of o: the one the user gave (flag or usage
// file), else the catalog's band of o's type and region (AWS Spot Advisor's,
// or the provider's own figure from a price file), else the
// default, labelled as an assumption (for a provider other than AWS it is
// derived from AWS's GPU bands, not that provider's figure).
func (c *Catalog) SpotBandChoice(o *Offering, given string) BandChoice {
	if given != "" {
		return BandChoice{Label: given, Origin: "given"}
	}
	if b := c.SpotBandFor(o); b != nil {
		from := b.Source
		if s := c.Source(b.Source); s != nil && s.Title != "" {
			from = s.Title
		}
		return BandChoice{Label: b.Label, Origin: fmt.Sprintf("%s, for %s in %s, %s", from, orEvery(b.InstanceType, "every type"), orEvery(b.Region, "every region"), b.AsOf)}
	}
	origin := "assumed: " + DefaultSpotBandBasis + "; no Advisor data for this type and region; set --spot-band"
	if o.Provider != "aws" {
		origin = fmt.Sprintf("assumed: %s, not a %s figure; give %s's own with --spot-band", DefaultSpotBandBasis, o.Provider, o.Provider)
	}
	return BandChoice{Label: DefaultSpotBand, Origin: origin, Assumed: true}
}

// PerRegion keeps the first row of each provider, instance type and region:
// what is priced per region (on-demand, commitments, egress) is priced once,
// however many zones carry the offering. Spot prices come from SpotQuoteFor.
func PerRegion(rows []Row) []Row {
	seen := map[regionID]bool{}
	out := rows[:0:0]
	for _, r := range rows {
		k := regionOf(r.Offering)
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

func orEvery(s, every string) string {
	if s == "" {
		return every
	}
	return s
}
