package advise

import (
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
	Mix           string // bursty: "base: ... + burst: ..."
	Total         decimal.Decimal
	Currency      money.Currency
	ExpectedHours float64 // wall-clock hours to finish the job (0 for steady loads)
	PMissDeadline float64
	UpfrontCash   decimal.Decimal
	Speed         float64 // per GPU, relative to the reference
	NodeSpeed     float64 // whole instance, in reference-GPU equivalents
	Breakdown     map[string]decimal.Decimal
	Explanation   []string
	Breakeven     *float64
	Risks         []string // capacity risks
	Ecosystem     []string // images and monitoring the provider offers
	option        *cost.Option
}

// Excluded is an offering family left out, and why.
type Excluded struct {
	What   string
	Reason string
}

// Result is advise's answer.
type Result struct {
	Plans     []Plan
	Excluded  []Excluded
	Closest   []Plan   // when nothing meets the constraints: the nearest plans
	Violation string   // which constraint nothing meets
	Summary   []string // the three decision steps
	Inputs    map[string]any
}

func planName(p *Plan) string {
	s := p.Model
	if p.Term != "" {
		s += " " + p.Term
	}
	return s
}
