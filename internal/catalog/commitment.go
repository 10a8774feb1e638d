package catalog

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/money"
)

// Pricing models a commitment can have.
const (
	ModelReserved     = "reserved"     // AWS/Alibaba/Tencent reserved instances, Azure reservations
	ModelSavingsPlan  = "savings-plan" // a committed spend per hour
	ModelCommitment   = "commitment"   // GCP committed-use discounts
	ModelSubscription = "subscription" // Alibaba 包年包月, Tencent prepaid (包年包月)
	// ModelCapacityBlock is AWS's EC2 Capacity Blocks for ML: capacity for
	// a block of days the buyer picks, paid upfront, never interrupted.
	// Its price is per instance-hour of the block; its term is TermBlock.
	ModelCapacityBlock = "capacity-block"
)

// TermBlock is the term of a capacity block: its length is the buyer's
// choice (cost.CapacityBlockDays rounds a job up to a length AWS sells).
const TermBlock = "block"

// Payment schemes.
const (
	PayNone    = "no-upfront"
	PayPartial = "partial-upfront"
	PayAll     = "all-upfront"
	PayMonthly = "monthly"
)

// Commitment is the price of one commitment offer for an instance type in a
// region: an upfront amount, plus a recurring charge billed for every hour
// (or month) of the term whether used or not.
type Commitment struct {
	Provider     string
	InstanceType string
	Region       string
	Model        string
	Term         string // "1y", "3y", "1mo"
	Payment      string
	Class        string // AWS: standard or convertible
	Upfront      decimal.Decimal
	Hourly       decimal.Decimal // recurring per term hour
	Monthly      decimal.Decimal // recurring per month (GCP quotes commitments per month)
	Currency     money.Currency
	Source       string
	AsOf         string
	Note         string // what to know of the price (a range the source gives); shown with it
}

// TermMonths is the length of the term in months.
func (c *Commitment) TermMonths() int { return TermMonths(c.Term) }

// TermMonths parses "1y", "3y", "1mo", "6mo"; 0 if malformed.
func TermMonths(t string) int {
	num, per := t, 0
	switch {
	case strings.HasSuffix(t, "mo"):
		num, per = strings.TrimSuffix(t, "mo"), 1
	case strings.HasSuffix(t, "y"):
		num, per = strings.TrimSuffix(t, "y"), 12
	default:
		return 0
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return 0
	}
	return n * per // a negative term stays negative, for the caller's range check to name
}

// CommitmentColumns is the header of the generated commitments.csv.
var CommitmentColumns = []string{"provider", "instance_type", "region", "model", "term", "payment", "class", "upfront", "hourly", "monthly", "currency", "source", "as_of", "note"}

// WriteCommitmentsCSV writes commitments in the snapshot format.
func WriteCommitmentsCSV(w io.Writer, cs []Commitment) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(CommitmentColumns); err != nil {
		return err
	}
	for _, c := range cs {
		if err := cw.Write([]string{c.Provider, c.InstanceType, c.Region, c.Model, c.Term, c.Payment, c.Class,
			c.Upfront.String(), c.Hourly.String(), c.Monthly.String(), string(c.Currency), c.Source, c.AsOf, c.Note}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadCommitmentsCSV parses the snapshot format.
func ReadCommitmentsCSV(r io.Reader) ([]Commitment, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("commitments: %w", err)
	}
	// A refreshed set written before the note column (13 columns) still
	// reads, without notes.
	noNote := len(CommitmentColumns) - 1
	if len(recs) == 0 || (strings.Join(recs[0], ",") != strings.Join(CommitmentColumns, ",") && strings.Join(recs[0], ",") != strings.Join(CommitmentColumns[:noNote], ",")) {
		return nil, fmt.Errorf("commitments: header must be %s", strings.Join(CommitmentColumns, ","))
	}
	var out []Commitment
	for i, rec := range recs[1:] {
		c := Commitment{Provider: rec[0], InstanceType: rec[1], Region: rec[2], Model: rec[3], Term: rec[4], Payment: rec[5], Class: rec[6],
			Currency: money.Currency(rec[10]), Source: rec[11], AsOf: rec[12]}
		if len(rec) > noNote {
			c.Note = rec[noNote]
		}
		for j, dst := range []*decimal.Decimal{&c.Upfront, &c.Hourly, &c.Monthly} {
			if c := rec[7+j]; c == "" {
				continue
			}
			d, err := decimal.NewFromString(rec[7+j])
			if err != nil || d.IsNegative() {
				return nil, fmt.Errorf("commitments line %d: %s %q is not a non-negative number", i+2, CommitmentColumns[7+j], rec[7+j])
			}
			*dst = d
		}
		if err := c.checkTerm(); err != nil {
			return nil, fmt.Errorf("commitments line %d: %w", i+2, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// checkTerm: a capacity block has the term "block" and an hourly price;
// every other commitment a term of whole months.
func (c *Commitment) checkTerm() error {
	if c.Model == ModelCapacityBlock {
		if c.Term != TermBlock || !c.Hourly.IsPositive() {
			return fmt.Errorf("%s %s: a capacity block has term %q and a positive hourly price, got term %q hourly %s", c.InstanceType, c.Region, TermBlock, c.Term, c.Hourly)
		}
		return nil
	}
	if c.TermMonths() <= 0 {
		return fmt.Errorf("term %q; want 1y, 3y or Nmo", c.Term)
	}
	return nil
}

// IsScheme reports whether the commitment is one of the provider's
// commitment schemes (a term of months), not a capacity block.
func (c *Commitment) IsScheme() bool { return c.Model != ModelCapacityBlock }

// CommitmentsFor returns the commitment offers for an offering's type and region.
func (c *Catalog) CommitmentsFor(o *Offering) []*Commitment {
	var out []*Commitment
	for i := range c.Commitments {
		x := &c.Commitments[i]
		if x.Provider == o.Provider && x.InstanceType == o.InstanceType && x.Region == o.Region {
			out = append(out, x)
		}
	}
	return out
}
