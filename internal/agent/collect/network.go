package collect

import (
	"time"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Network reads the byte counters of every interface and projects the
// egress of the counted ones (agentconfig.Network) over a month.
//
// What it counts: every byte sent on the counted interfaces. That is an
// upper bound of billed egress, since bytes to private addresses are sent
// too and billed less or not at all; exclude the interfaces that only carry
// private traffic in the config.
type Network struct {
	// Root is the proc root (/proc).
	Root string
	Net  agentconfig.Network
	// Egress prices the projected month (nil: no sourced prices for the
	// node's provider and region; the cost stays unknown).
	Egress   *catalog.EgressTable
	Provider string
	Region   string
	// Currency of the cost, converted with FX from the table's ("" keeps
	// the table's).
	Currency money.Currency
	FX       *money.FX

	prevAt time.Time
	prevTX uint64
	prevOK bool
}

// Name is "network".
func (n *Network) Name() string { return NameNetwork }

// Collect reads net/dev.
func (n *Network) Collect(now time.Time, b *agent.Batch) error {
	ifs, err := ReadNetDev(n.Root)
	if err != nil {
		n.prevOK = false
		return err
	}
	var tx uint64
	for _, x := range ifs {
		b.Add(agent.NetworkReceive, float64(x.RX), x.Name)
		b.Add(agent.NetworkTransmit, float64(x.TX), x.Name)
		if n.Net.Counts(x.Name) {
			tx += x.TX
		}
	}
	if n.Net.EgressBasis == agentconfig.EgressOff {
		return nil
	}
	// A rate needs two readings; a counter that went back (an interface
	// came and went) restarts the pair.
	if n.prevOK && tx >= n.prevTX && now.After(n.prevAt) {
		rate := float64(tx-n.prevTX) / now.Sub(n.prevAt).Seconds()
		b.Add(agent.EgressRate, rate)
		monthly := rate * catalog.HoursPerMonth * 3600
		b.Add(agent.EgressProjectedBytes, monthly)
		if c, cur, ok := n.price(monthly / 1e9); ok {
			b.Add(agent.EgressProjectedCost, c, string(cur), n.Provider, n.Region)
		}
	}
	n.prevAt, n.prevTX, n.prevOK = now, tx, true
	return nil
}

// price prices gb a month of internet egress, in n.Currency, through the
// tiers alone: a free allowance (AWS's 100 GB a month) is the account's,
// shared with every other node and service, so one node's projection does
// not take it.
func (n *Network) price(gb float64) (float64, money.Currency, bool) {
	if n.Egress == nil {
		return 0, "", false
	}
	c, ok, _ := cost.EgressCost(n.Egress, catalog.PathInternet, gb)
	if !ok {
		return 0, "", false
	}
	cur := n.Egress.Currency
	if n.Currency != "" && n.Currency != cur && n.FX != nil {
		v, err := n.FX.Convert(c, cur, n.Currency)
		if err != nil {
			return 0, "", false
		}
		c, cur = v, n.Currency
	}
	return c.Round(6).InexactFloat64(), cur, true
}
