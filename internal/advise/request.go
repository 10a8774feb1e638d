package advise

import (
	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
)

// Objectives rank plans.
const (
	ObjectiveCost     = "cost"
	ObjectiveTime     = "time"
	ObjectiveBalanced = "balanced"
)

// Request is what the user asked.
type Request struct {
	Scenario *Scenario
	Ref      *catalog.GPU // the GPU the work is measured on
	RefCount float64      // GPUs in --gpu NAME:COUNT (a steady load's size; 1 if none)

	// Size: a job (WorkGPUHours of work on Ref), or a steady load, or a bursty one.
	WorkGPUHours  float64
	HoursPerMonth float64 // steady: hours a month of RefCount GPUs' capacity
	Bursty        bool
	Base, Peak    float64 // bursty: GPUs (on Ref) always on, and at peak
	PeakHours     float64 // bursty: hours a month at peak

	HorizonMonths float64
	Deadline      float64             // hours; 0: none
	Budget        decimal.NullDecimal // in Currency
	Objective     string

	Select   catalog.Query // providers, regions, China, currency, FX
	Usage    cost.Usage    // discount rate, egress, storage, credits, licence, spot assumptions
	NoSpot   bool
	Bench    map[*catalog.GPU]*benchreport.Report
	MaxNodes int
}
