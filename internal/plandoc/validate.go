package plandoc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/jsonfields"
	"github.com/gpuscout/gpuscout/internal/money"
)

// Limits bound a plan as it is read: 16 MiB (advise -o json of a wide
// search is about 100 KiB), numbers up to 1e15 in magnitude.
var Limits = jsonfields.Limits{MaxBytes: 16 << 20, MaxNumber: 1e15}

// Bounds of a plan's fields: advise's own bounds of a request (the test
// checks they agree), and generous ones on what advise computes.
const (
	MaxHorizonMonths = 120       // ten years: advise's --horizon bound and a plan's cash flows
	MaxGPUs          = 100000    // GPUs of the reference in a load, of an ask
	MaxWorkGPUHours  = 1e9       // GPU-hours of a job
	MaxDeadlineHours = 10 * 8760 // ten years
	MaxHoursPerMonth = 744       // the longest month
	MaxInstances     = 1000000   // instances of one plan, a plan's rank
	MaxHours         = 1e7       // a plan's expected hours, a time budget (over 1,000 years)
	MaxSpeed         = 1e4       // a plan's speed per GPU relative to the reference
	MaxRegions       = 1000      // --spot-regions
	MaxParameters    = 1e15      // a scenario's reference parameters, samples a step
)

// Unmarshal reads a plan strictly: one JSON value, each key once, no field
// the schema does not have, every number bounded. The plan's ranges are
// Validate's.
func Unmarshal(b []byte) (*Document, error) {
	var d Document
	if err := jsonfields.Unmarshal(b, &d, Limits); err != nil {
		return nil, fmt.Errorf("not the JSON of 'gpuscout advise -o json': %w", err)
	}
	return &d, nil
}

// Decode reads a plan of at most Limits.MaxBytes from r strictly (Unmarshal).
func Decode(r io.Reader) (*Document, error) {
	b, err := jsonfields.Read(r, Limits)
	if err != nil {
		return nil, fmt.Errorf("not the JSON of 'gpuscout advise -o json': %w", err)
	}
	return Unmarshal(b)
}

// Read is Unmarshal and Validate: what the server accepts as a plan.
func Read(b []byte) (*Document, error) {
	d, err := Unmarshal(b)
	if err != nil {
		return nil, err
	}
	if err := d.Validate(); err != nil {
		return nil, err
	}
	return d, nil
}

// Validate checks the plan's fields against their ranges: the inputs'
// scenario and currency given, each plan's counts, hours, shares and
// amounts within advise's bounds, cash flows within the horizon. Errors
// name the field by its JSON path and say what is allowed.
func (d *Document) Validate() error {
	if d.Plans == nil {
		return errors.New("field plans is missing: want the plans of 'gpuscout advise -o json' (an empty list when none fits)")
	}
	in := &d.Inputs
	if in.Scenario == "" {
		return errors.New("field inputs.scenario is missing: want the scenario advise was asked about, such as cv-training")
	}
	if in.Currency != "" {
		if _, err := money.ParseCurrency(in.Currency); err != nil {
			return fmt.Errorf("field inputs.currency: %v", err)
		}
	}
	for _, c := range []struct {
		field string
		v     float64
		max   float64
	}{
		{"inputs.reference_gpu_count", in.ReferenceCount, MaxGPUs},
		{"inputs.time_budget_hours", in.TimeBudgetHours, MaxHours},
		{"inputs.spot_regions", float64(in.SpotRegions), MaxRegions},
	} {
		if err := within(c.field, c.v, 0, c.max); err != nil {
			return err
		}
	}
	// Null where not given; a number within its range where given (0 only
	// in uploads from before these were null, read as none).
	for _, c := range []struct {
		field string
		v     *float64
		max   float64
	}{
		{"inputs.work_gpu_hours", in.WorkGPUHours, MaxWorkGPUHours},
		{"inputs.hours_per_month", in.HoursPerMonth, MaxHoursPerMonth},
		{"inputs.horizon_months", in.HorizonMonths, MaxHorizonMonths},
		{"inputs.deadline_hours", in.DeadlineHours, MaxDeadlineHours},
		{"inputs.mfu", in.MFU, 1},
		{"inputs.overlap", in.Overlap, 1},
		{"inputs.reference_parameters", in.ReferenceParameters, MaxParameters},
		{"inputs.samples_per_gpu_step", in.SamplesPerGPUStep, MaxParameters},
	} {
		if c.v == nil {
			continue
		}
		if err := within(c.field, *c.v, 0, c.max); err != nil {
			return fmt.Errorf("%w, or null where not given", err)
		}
	}
	if in.Budget != nil {
		if err := amount("inputs.budget", in.Budget); err != nil {
			return err
		}
	}
	if a := in.Ask; a != nil {
		if err := within("inputs.ask.count", a.Count, 0, MaxGPUs); err != nil {
			return err
		}
		if err := within("inputs.ask.hours", a.Hours, 0, MaxHours); err != nil {
			return err
		}
	}
	for i := range d.Plans {
		if err := d.Plans[i].validate(fmt.Sprintf("plans[%d]", i)); err != nil {
			return err
		}
	}
	for i := range d.Closest {
		if err := d.Closest[i].validate(fmt.Sprintf("closest[%d]", i)); err != nil {
			return err
		}
	}
	return nil
}

func (p *Plan) validate(at string) error {
	if p.Currency != "" {
		if _, err := money.ParseCurrency(p.Currency); err != nil {
			return fmt.Errorf("field %s.currency: %v", at, err)
		}
	}
	for _, c := range []struct {
		field    string
		v        float64
		min, max float64
	}{
		{"rank", float64(p.Rank), 0, MaxInstances},
		{"gpu_count", p.GPUCount, 0, MaxGPUs},
		{"instances", float64(p.Instances), 0, MaxInstances},
		{"block_days", float64(p.BlockDays), 0, 366},
		{"price_age_days", float64(p.PriceAgeDays), -366, 36600},
		{"expected_hours", p.ExpectedHours, 0, MaxHours},
		{"relative_speed_per_gpu", p.RelSpeed, 0, MaxSpeed},
		{"horizon_months", p.HorizonMonths, 0, MaxHorizonMonths},
	} {
		if err := within(at+"."+c.field, c.v, c.min, c.max); err != nil {
			return err
		}
	}
	if p.SpotRegret != nil {
		if err := within(at+".spot_regret", *p.SpotRegret, -1, 1e6); err != nil {
			return err
		}
	}
	if p.PMissDeadline != nil {
		if err := within(at+".p_miss_deadline", *p.PMissDeadline, 0, 1); err != nil {
			return err
		}
	}
	for _, a := range []struct {
		field string
		n     *json.Number
	}{{"total_cost", p.TotalCost}, {"price_per_hour", p.PricePerHour}, {"upfront_cash", p.UpfrontCash}, {"spot_floor_cost", p.SpotFloorCost}} {
		if a.n != nil {
			if err := amount(at+"."+a.field, a.n); err != nil {
				return err
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(p.Breakdown)) {
		n := p.Breakdown[k]
		if n == nil {
			return fmt.Errorf("field %s.cost_breakdown[%q] is null; want an amount", at, k)
		}
		if err := amount(fmt.Sprintf("%s.cost_breakdown[%q]", at, k), n); err != nil {
			return err
		}
	}
	for j, f := range p.CashFlows {
		if f.FromMonth < 0 || f.ToMonth < f.FromMonth || f.ToMonth > MaxHorizonMonths {
			return fmt.Errorf("field %s.cash_flows[%d]: months %d to %d; want 0 ≤ from_month ≤ to_month ≤ %d", at, j, f.FromMonth, f.ToMonth, MaxHorizonMonths)
		}
		if f.PerMonth == nil {
			return fmt.Errorf("field %s.cash_flows[%d].per_month is missing; want an amount", at, j)
		}
		if err := amount(fmt.Sprintf("%s.cash_flows[%d].per_month", at, j), f.PerMonth); err != nil {
			return err
		}
	}
	if e := p.ThroughputEstimate; e != nil {
		if err := within(at+".throughput_estimate.uncertainty", e.Uncertainty, 0, 100); err != nil {
			return err
		}
	}
	if g := p.Network.Gbps; g != nil {
		if err := within(at+".network.gbps", *g, 0, 1e6); err != nil {
			return err
		}
	}
	return nil
}

// within refuses v outside [min, max].
func within(field string, v, min, max float64) error {
	if !(v >= min && v <= max) || math.IsInf(v, 0) {
		return fmt.Errorf("field %s = %g is outside the allowed range: want %g to %g", field, v, min, max)
	}
	return nil
}

// amount refuses an amount beyond ±money.MaxAmount or written with an
// exponent money does not read.
func amount(field string, n *json.Number) error {
	d, err := money.ParseDecimal(n.String())
	if err != nil || d.Abs().GreaterThan(money.MaxAmount) {
		return fmt.Errorf("field %s = %s is outside the allowed range: want an amount from -%s to %s", field, n, money.MaxAmount, money.MaxAmount)
	}
	return nil
}

// Decimal is n as a decimal; false for nil or an amount Validate refuses.
func Decimal(n *json.Number) (decimal.Decimal, bool) {
	if n == nil || amount("", n) != nil {
		return decimal.Decimal{}, false
	}
	d, err := money.ParseDecimal(n.String())
	return d, err == nil
}
