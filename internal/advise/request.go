package advise

import (
	"errors"
	"fmt"
	"math"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/spot"
)

// Objectives rank plans.
const (
	ObjectiveCost     = "cost"
	ObjectiveTime     = "time"
	ObjectiveBalanced = "balanced"
)

// Bounds of a request, documented in README (advise).
const (
	MaxGPUs          = 100000    // GPUs of the reference in a load (--gpu NAME:COUNT, --base, --peak)
	MaxWorkGPUHours  = 1e9       // GPU-hours of a job
	MaxDeadlineHours = 10 * 8760 // ten years
	MaxHorizonMonths = 120       // ten years
	MaxNodes         = 10000     // instances a plan may use
	DefaultMaxNodes  = 64
	DefaultHorizon   = 12 // months, for steady and bursty loads
	// DefaultTimeBudgetHours is the wall-clock time a job's plans must
	// finish in when the user gives no --deadline and names no duration
	// (--for): a month, so that no plan of years ranks first unseen; plans
	// scale out (up to --max-nodes) to meet it, and the answer says so.
	DefaultTimeBudgetHours = 30 * 24
)

// Request is what the user asked. Build it, call Defaults, then Validate:
// Validate only checks, and never changes the request.
type Request struct {
	Scenario *Scenario
	Ref      *catalog.GPU // the GPU the work is measured on
	RefCount float64      // GPUs in --gpu NAME:COUNT (a steady load's size; 1 if none)
	// RefDefault: no --gpu, --work or --model named the load's GPU, so it
	// is the default reference (1 × A100-SXM4-40GB); the summary says so.
	RefDefault bool

	// Size: a job (WorkGPUHours of work on Ref), or a steady load, or a bursty one.
	WorkGPUHours  float64
	HoursPerMonth float64 // steady: hours a month of RefCount GPUs' capacity
	Bursty        bool
	Base, Peak    float64 // bursty: GPUs (on Ref) always on, and at peak
	PeakHours     float64 // bursty: hours a month at peak

	HorizonMonths float64             // steady and bursty loads; 0 for a job
	Deadline      float64             // hours; 0: none
	Budget        decimal.NullDecimal // in the advisor's currency
	Objective     string

	Select   catalog.Query // providers, regions, China, currency, FX
	Usage    cost.Usage    // discount rate, egress, storage, credits, licence, spot assumptions
	NoSpot   bool
	Bench    map[*catalog.GPU]*benchreport.Report
	MaxNodes int
	// AllowSlowNetwork lets communication-heavy work spread over nodes
	// joined by a slow or unsourced network, or over marketplace hosts
	// (--allow-slow-network); the time model still charges the network.
	AllowSlowNetwork bool

	Model *ModelJob // sizing by the model (sizing.go); nil: none

	// Ask is the shape and time the user named (--gpu NAME:COUNT --for D); nil if none.
	Ask *Ask
	// Accelerators is cuda or any (--accelerators); "": the scenario's default.
	Accelerators string
	// SpotRegions is how many regions a spot plan may fail over among, its
	// offering's own first (--spot-regions, 1 to MaxSpotRegions; 0: 1).
	SpotRegions int
	// CheckpointGB is the job's state a failover moves, GB (--checkpoint-gb,
	// at most MaxCheckpointGB); 0: from --model or the scenario's reference model.
	CheckpointGB float64
}

// DefaultSizeHint says how to give a load's size where it is the default
// (RefDefault): the summary and the report's question say the same.
func DefaultSizeHint(r *Request) string {
	if r.Model != nil {
		return "--gpu NAME:COUNT sizes it"
	}
	return "--gpu NAME:COUNT or --model sizes it"
}

// IsJob says whether the request is a job (a fixed amount of work).
func (r *Request) IsJob() bool { return r.WorkGPUHours > 0 }

// Defaults fills what was left unset with its documented default: one GPU
// of the reference, objective cost, at most 64 instances, a 12-month horizon
// for loads, the default spot assumptions.
func (r *Request) Defaults() {
	r.defaultsModel() // first: --tokens may make the request a job
	if r.RefCount == 0 {
		r.RefCount = 1
	}
	if r.Objective == "" {
		r.Objective = ObjectiveCost
	}
	if r.MaxNodes == 0 {
		// An ask of more GPUs than 64 nodes hold raises the default: the
		// shape asked is always priced.
		r.MaxNodes = max(DefaultMaxNodes, r.Ask.nodes())
	}
	if !r.IsJob() && r.HorizonMonths == 0 {
		r.HorizonMonths = DefaultHorizon
	}
	if r.Usage.Spot == (cost.SpotAssumptions{}) {
		r.Usage.Spot = cost.DefaultSpot
	}
	if r.SpotRegions == 0 {
		r.SpotRegions = 1
	}
}

// Validate checks the request against the documented bounds. Messages name
// the flag, the value given and what is allowed.
func (r *Request) Validate() error {
	if r.Scenario == nil {
		return errors.New("--scenario is required")
	}
	if r.Ref == nil {
		return errors.New("no reference GPU: give --gpu NAME[:COUNT] or --work N gpu-h@GPU")
	}
	if !(r.RefCount > 0) || r.RefCount > MaxGPUs {
		return fmt.Errorf("--gpu %s:%g: want a count in (0, %d]", r.Ref.Name, r.RefCount, MaxGPUs)
	}
	if err := r.validateModel(); err != nil {
		return err
	}
	switch {
	case r.IsJob():
		if r.WorkGPUHours > MaxWorkGPUHours || math.IsInf(r.WorkGPUHours, 0) {
			return fmt.Errorf("the work, %g GPU-hours (--work, or --gpu × --for): want at most %g", r.WorkGPUHours, float64(MaxWorkGPUHours))
		}
		if r.Bursty || r.HoursPerMonth != 0 {
			return errors.New("give the size of the work once: a job (--for or --work), or a load (--hours-per-month or --pattern bursty)")
		}
		if r.HorizonMonths != 0 {
			return errors.New("--horizon applies to a steady or bursty load, not to a job (--for or --work)")
		}
	case r.Bursty:
		if !(r.Peak > 0) || r.Peak > MaxGPUs || !(r.Base >= 0) || r.Base > r.Peak {
			return fmt.Errorf("--pattern bursty needs 0 <= --base <= --peak <= %d (GPUs of the reference), got base %g, peak %g", MaxGPUs, r.Base, r.Peak)
		}
		if r.Base == 0 {
			return fmt.Errorf("--base 0: with nothing always on the load is not bursty; price it as --hours-per-month %g --gpu NAME:%g", r.PeakHours, r.Peak)
		}
		if !(r.PeakHours >= cost.MinBillableHours) || r.PeakHours > catalog.HoursPerMonth {
			return fmt.Errorf("--peak-hours %g: %s", r.PeakHours, cost.HoursPerMonthRange)
		}
	default:
		if !(r.HoursPerMonth >= cost.MinBillableHours) || r.HoursPerMonth > catalog.HoursPerMonth {
			return fmt.Errorf("--hours-per-month %g: %s", r.HoursPerMonth, cost.HoursPerMonthRange)
		}
	}
	if !r.IsJob() && (!(r.HorizonMonths > 0) || r.HorizonMonths > MaxHorizonMonths) {
		return fmt.Errorf("--horizon %g months: want more than 0 and at most %d months (10y)", r.HorizonMonths, MaxHorizonMonths)
	}
	if r.Deadline != 0 {
		if !r.IsJob() {
			return errors.New("--deadline applies to a job (--for or --work), not to a steady load")
		}
		if !(r.Deadline > 0) || r.Deadline > MaxDeadlineHours {
			return fmt.Errorf("--deadline %g h: want more than 0 and at most %d h (10y)", r.Deadline, MaxDeadlineHours)
		}
	}
	if r.Budget.Valid && !r.Budget.Decimal.IsPositive() {
		return fmt.Errorf("--budget %s: want a positive amount", r.Budget.Decimal)
	}
	if err := r.validateAccelerators(); err != nil {
		return err
	}
	switch r.Objective {
	case ObjectiveCost, ObjectiveTime, ObjectiveBalanced:
	default:
		return fmt.Errorf("--objective %q: want cost, time or balanced", r.Objective)
	}
	if r.MaxNodes < 1 || r.MaxNodes > MaxNodes {
		return fmt.Errorf("--max-nodes %d: want 1 to %d", r.MaxNodes, MaxNodes)
	}
	if r.SpotRegions < 1 || r.SpotRegions > MaxSpotRegions {
		return fmt.Errorf("--spot-regions %d: want 1 to %d (1: the offering's region alone)", r.SpotRegions, MaxSpotRegions)
	}
	if !(r.CheckpointGB >= 0) || r.CheckpointGB > MaxCheckpointGB {
		return fmt.Errorf("--checkpoint-gb %g: want more than 0 and at most %d GB", r.CheckpointGB, MaxCheckpointGB)
	}
	if r.CheckpointGB > 0 && r.SpotRegions < 2 {
		return fmt.Errorf("--checkpoint-gb %g: it sizes the moves of --spot-regions 2 or more; without them no state moves", r.CheckpointGB)
	}
	if b := r.Usage.Spot.Band; b != "" {
		if _, _, _, err := spot.BandHazard(b); err != nil {
			return fmt.Errorf("--spot-band %q: %v", b, err)
		}
	}
	check := r.Usage
	check.HoursPerMonth, check.HorizonMonths, check.DurationHours, check.Instances = 1, 0, 0, 1
	_, err := check.Resolved()
	return err
}
