package advise

import (
	"math"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Plan is one way to run the work.
type Plan struct {
	Rank          int
	Offering      *catalog.Offering
	Instances     int
	Model         string // pricing model; "mix" for bursty base + burst
	Term, Payment string
	BlockDays     int // a Capacity Block plan: the block's length in days
	// PriceAsOf is the date of the oldest price the plan bills at, as far
	// as it is known ("2021" for a page dated only by year), its age in
	// days when advised (for such a date, the most it can be), and whether
	// a price it bills at is past the age rule (catalog.PriceAge: a year,
	// 30 days for spot): then the plan says so.
	PriceAsOf     string
	PriceAgeDays  int
	Stale         bool
	Mix           string // bursty: "base: ... + burst: ..."
	Total         money.Amount
	Currency      money.Currency
	ExpectedHours float64 // wall-clock hours to finish the job (0 for steady loads)
	PMissDeadline float64
	UpfrontCash   money.Amount
	Speed         float64 // per GPU, relative to the reference
	NodeSpeed     float64 // whole instance, in reference-GPU equivalents
	Breakdown     map[string]decimal.Decimal
	Explanation   []string
	Breakeven     *float64
	Risks         []string // capacity risks
	Ecosystem     []string // images and monitoring the provider offers
	// PricePerHour is the price of one instance-hour under the plan's
	// pricing model, in Currency: the list price for on-demand and spot, the
	// effective price per hour of use for a commitment; invalid where unknown.
	PricePerHour decimal.NullDecimal
	// OnDemandPerHour is the offering's on-demand price per instance-hour in
	// Currency (a spot plan's fallback); invalid where unknown.
	OnDemandPerHour decimal.NullDecimal
	// Deadline is the job's deadline in hours that the plan was made for; 0: none.
	Deadline float64
	// SpotFloor is a spot plan's hindsight optimum: the usage cost of the
	// cheapest schedule meeting the deadline with the future known, on the
	// plan's simulated availability, in Currency; invalid where not simulated.
	SpotFloor decimal.NullDecimal
	// SpotRegret is the plan's policy's mean cost over that optimum's, minus
	// 1, on the same runs; nil where not simulated.
	SpotRegret *float64
	// Zone is where a spot plan is priced and runs, every instance of it
	// (the region's cheapest zone with a spot price); "" where the price is
	// the region's.
	Zone string
	// SpotRegions lists the regions a spot plan may fail over among, its
	// offering's first; nil where it stays in one.
	SpotRegions []string
	// Stages is the instances one replica of a served model spans
	// (pipeline parallel, a stage each); 0 or 1: one instance holds it.
	Stages int
	// EstimatedFrom is the GPU whose figures stand in for the plan's GPU's
	// (gpus.yaml estimate: no published or measured throughput); nil where
	// the GPU's own figures give its speed.
	EstimatedFrom *catalog.GPU
	// AsAsked marks a plan on the shape the user named (--gpu NAME:COUNT with --for).
	AsAsked bool
	// CashFlows are the plan's payments as the cost engine scheduled them
	// (a mix's base and burst together), in Currency; they sum to Total.
	// Parts without a sourced price (NotPriced) are in neither. nil where
	// unknown: a plan rebuilt from an advise -o json written before plans
	// carried their cash flows.
	CashFlows cost.Schedule
	// HorizonMonths is the window the cash flows cover, in months: the
	// load's horizon, or a job's billed hours / 730.
	HorizonMonths float64
	// NotPriced are the shared parts (egress, storage) left out of the total
	// and the cash flows for want of a sourced price.
	NotPriced []string
	option    *cost.Option
	spot      *spotState // a spot plan's candidate, for its hindsight optimum (floorForBest)
	// datesRead: how the dates of the prices the plan bills at read, by
	// source and as-of (datePrices, from the catalog: "2021 (day
	// unknown)" where the as-of is a placeholder day); see DateRead.
	datesRead map[[2]string]string
}

// CashFlowMonths is the number of monthly payment dates after the start
// that the plan's cash flows span: the horizon rounded up to whole months,
// or further where a flow runs past it.
func (p *Plan) CashFlowMonths() int {
	n := int(math.Ceil(p.HorizonMonths - 1e-9))
	for _, f := range p.CashFlows {
		n = max(n, f.To)
	}
	return max(n, 0)
}

// Commitment is the commitment price the plan (or a bursty plan's base)
// is priced from, with its source and date; nil for pay-as-you-go plans.
func (p *Plan) Commitment() *catalog.Commitment {
	if p.option == nil {
		return nil
	}
	return p.option.Commitment()
}

// Excluded is an offering family left out, and why.
type Excluded struct {
	What   string `json:"what"`
	Reason string `json:"reason"`
}

// Result is advise's answer.
type Result struct {
	Plans     []Plan
	Excluded  []Excluded
	Closest   []Plan   // when nothing meets the constraints: the nearest plans
	Violation string   // which constraint nothing meets
	Summary   []string // the three decision steps
	Inputs    map[string]any
	// TimeBudgetHours is the default wall-clock budget a job without
	// --deadline or --for was sized to (DefaultTimeBudgetHours); 0 where
	// the user gave one.
	TimeBudgetHours float64
}

func planName(p *Plan) string {
	s := p.Model
	if p.Term != "" {
		s += " " + p.Term
	}
	return s
}
