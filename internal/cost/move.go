package cost

import (
	"fmt"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Move is the data-transfer cost of moving a job's state once, from one
// place to another, priced by the catalog's egress table of the region the
// bytes leave.
type Move struct {
	Amount decimal.Decimal      // in the currency asked for
	Path   string               // catalog.PathCrossZone or catalog.PathCrossRegion
	Table  *catalog.EgressTable // the source region's table
}

// Describe is the move's price and where it comes from, for explanations:
// "cross-region, US, Canada, EU, infracost-aws-transfer@2024-09".
func (m Move) Describe() string {
	s := m.Path
	if m.Table.Paths[m.Path].BothDirections {
		s += ", billed out and in"
	}
	return fmt.Sprintf("%s, %s, %s", s, m.Table.Group, m.Table.PathSource(m.Path))
}

// MoveCost prices one move of gb GB of a job's state on provider's network
// out of region from, to another region (crossRegion) or to another zone of
// the same region, as
// one month's first GB on the path, in currency cur. It is the one place
// that decides what a spot move between zones or regions costs (advise's
// failover across regions and spot's several zones both ask it); an
// error says why no sourced price exists, and no price is ever zero for
// want of one.
func MoveCost(c *catalog.Catalog, fx *money.FX, provider, from string, crossRegion bool, gb float64, cur money.Currency) (Move, error) {
	path := catalog.PathCrossZone
	if crossRegion {
		path = catalog.PathCrossRegion
	}
	t := c.Egress(provider, from)
	amt, ok, why := EgressCost(t, path, gb)
	if !ok {
		return Move{}, fmt.Errorf("%s", why)
	}
	if t.Currency != "" && t.Currency != cur {
		v, err := fx.Convert(amt, t.Currency, cur)
		if err != nil {
			return Move{}, err
		}
		amt = v
	}
	return Move{Amount: amt, Path: path, Table: t}, nil
}
