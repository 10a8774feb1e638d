package collect

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Cost is the cost meter: the price of an instance-hour times the plan's
// instances times this node's uptime (since boot, from <root>/uptime) is
// the spend so far; price times instances is the burn rate. Without a
// price it reports the uptime only: an unknown price is never zero.
type Cost struct {
	Root         string // the proc root (/proc)
	Price        decimal.NullDecimal
	Currency     money.Currency
	Instances    int
	InstanceType string
}

// Name is "cost".
func (c *Cost) Name() string { return NameCost }

// Collect reads the uptime and prices it.
func (c *Cost) Collect(now time.Time, b *agent.Batch) error {
	up, err := ReadUptime(c.Root)
	if err != nil {
		return err
	}
	b.Add(agent.NodeUptime, up.Seconds())
	if !c.Price.Valid {
		return nil
	}
	cur := string(c.Currency)
	n := decimal.NewFromInt(int64(c.Instances))
	burn := c.Price.Decimal.Mul(n)
	spend := burn.Mul(decimal.NewFromFloat(up.Seconds())).Div(decimal.NewFromInt(3600))
	b.Add(agent.CostPricePerHour, c.Price.Decimal.InexactFloat64(), cur, c.InstanceType)
	b.Add(agent.CostBurnRate, burn.InexactFloat64(), cur)
	b.Add(agent.CostSpend, spend.Round(6).InexactFloat64(), cur)
	return nil
}

// ReadUptime reads the first number of <root>/uptime: seconds since boot.
func ReadUptime(root string) (time.Duration, error) {
	b, err := os.ReadFile(filepath.Join(root, "uptime"))
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0, fmt.Errorf("%s: empty", filepath.Join(root, "uptime"))
	}
	s, err := strconv.ParseFloat(f[0], 64)
	if err != nil || !(s >= 0) || s > 1e10 {
		return 0, fmt.Errorf("%s: %q is not seconds since boot", filepath.Join(root, "uptime"), f[0])
	}
	return time.Duration(s * float64(time.Second)), nil
}
