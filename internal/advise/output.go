package advise

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// PlanJSON is one plan of advise -o json.
type PlanJSON struct {
	Rank         int         `json:"rank"`
	Provider     string      `json:"provider"`
	InstanceType string      `json:"instance_type"`
	Region       string      `json:"region"`
	GPU          string      `json:"gpu"`
	GPUCount     float64     `json:"gpu_count"`
	Instances    int         `json:"instances"`
	Interconnect string      `json:"interconnect"`
	Network      NetworkJSON `json:"network"`
	PricingModel string      `json:"pricing_model"`
	Term         string      `json:"term"`
	Payment      string      `json:"payment"`
	BlockDays    int         `json:"block_days,omitempty"` // a Capacity Block plan: the block's length
	// PriceAsOf is the date of the oldest price the plan bills at
	// (YYYY-MM-DD; "" where none is dated), its age in days, and whether
	// it is older than a year.
	PriceAsOf     string         `json:"price_as_of"`
	PriceAgeDays  int            `json:"price_age_days"`
	Stale         bool           `json:"stale"`
	Mix           string         `json:"mix,omitempty"`
	TotalCost     *json.Number   `json:"total_cost"`
	Currency      string         `json:"currency"`
	PricePerHour  *json.Number   `json:"price_per_hour"` // per instance-hour: the list price (on-demand, spot) or the commitment's effective price
	ExpectedHours float64        `json:"expected_hours"`
	PMissDeadline *float64       `json:"p_miss_deadline"` // null without a deadline
	UpfrontCash   *json.Number   `json:"upfront_cash"`
	RelSpeed      float64        `json:"relative_speed_per_gpu"`
	Breakdown     map[string]any `json:"cost_breakdown"`
	// HorizonMonths is the window the cash flows cover (a job's: its
	// billed hours / 730); CashFlows the payments in it, in Currency.
	HorizonMonths float64        `json:"horizon_months"`
	CashFlows     []CashFlowJSON `json:"cash_flows"`
	NotPriced     []string       `json:"cash_flows_not_priced,omitempty"` // parts left out of the total and the cash flows: no sourced price
	Explanation   []string       `json:"explanation"`
	Risks         []string       `json:"capacity_risks"`
	Ecosystem     []string       `json:"ecosystem"`
	AsAsked       bool           `json:"as_asked"`
	// SpotFloorCost and SpotRegret: a spot plan's hindsight optimum on the
	// same simulated availability (money, plan currency) and the plan's
	// cost over it (a share); null where not simulated (no deadline, not spot).
	SpotFloorCost *json.Number `json:"spot_floor_cost"`
	SpotRegret    *float64     `json:"spot_regret"`
	// ThroughputEstimate: the plan's GPU has no published or measured
	// throughput and another GPU's figures stand in; null otherwise.
	ThroughputEstimate *EstimateJSON `json:"throughput_estimate"`
	// Zone: where a spot plan is priced and runs (the region's cheapest
	// zone with a spot price); absent where the region has one price.
	Zone string `json:"zone,omitempty"`
	// SpotRegions: the regions a spot plan may fail over among (--spot-regions),
	// its own region first; absent where it stays in one.
	SpotRegions []string `json:"spot_regions,omitempty"`
}

// EstimateJSON says whose figures stand in for a GPU's, how far off the
// speed may be (a share: 0.5 is ±50%) and why (gpus.yaml estimate).
type EstimateJSON struct {
	From        string  `json:"from"`
	Uncertainty float64 `json:"uncertainty"`
	Basis       string  `json:"basis"`
	Source      string  `json:"source"`
}

func estimateJSON(p *Plan) *EstimateJSON {
	if p.EstimatedFrom == nil || p.Offering.GPU.Estimate == nil {
		return nil
	}
	e := p.Offering.GPU.Estimate
	return &EstimateJSON{From: p.EstimatedFrom.Name, Uncertainty: e.Uncertainty, Basis: e.Basis, Source: e.Source}
}

// CashFlowJSON is a run of equal monthly payments of one kind (upfront,
// commitment, usage, egress, storage, promotion, credit), as the cost
// engine schedules them: PerMonth paid at each of months FromMonth through
// ToMonth. Month 0 is the start (upfront fees, fees billed in advance);
// month j is the end of the j-th month. A 3-year commitment is two runs,
// not 74 lines; the plan's total is Σ per_month × (to_month − from_month + 1).
type CashFlowJSON struct {
	Kind      string       `json:"kind"`
	FromMonth int          `json:"from_month"`
	ToMonth   int          `json:"to_month"`
	PerMonth  *json.Number `json:"per_month"`
}

// CashFlowsJSON is a schedule as JSON; an empty schedule is an empty list.
func CashFlowsJSON(s cost.Schedule) []CashFlowJSON {
	out := make([]CashFlowJSON, 0, len(s))
	for _, f := range s {
		out = append(out, CashFlowJSON{Kind: f.Kind, FromMonth: f.From, ToMonth: f.To, PerMonth: money.Number(f.PerMonth)})
	}
	return out
}

// NetworkJSON is an offering's network between instances: kind (efa,
// infiniband, gpudirect-tcpx, gpudirect-tcpxo, rdma, ethernet, unknown), Gbps (null when
// unknown) and the source id.
type NetworkJSON struct {
	Kind   string   `json:"kind"`
	Gbps   *float64 `json:"gbps"`
	Source string   `json:"source,omitempty"`
}

// Output is advise -o json: the plans, what was left out and why, and the
// inputs as understood.
type Output struct {
	Plans     []PlanJSON     `json:"plans"`
	Excluded  []Excluded     `json:"excluded"`
	Summary   []string       `json:"summary"`
	Violation string         `json:"violation,omitempty"`
	Closest   []PlanJSON     `json:"closest,omitempty"`
	Inputs    map[string]any `json:"inputs"`
}

// PlanOutput is a plan's JSON.
func PlanOutput(p *Plan) PlanJSON {
	bd := map[string]any{}
	for k, v := range p.Breakdown {
		bd[k] = money.Number(v)
	}
	return PlanJSON{Rank: p.Rank, Provider: p.Offering.Provider, InstanceType: p.Offering.InstanceType, Region: p.Offering.Region,
		GPU: p.Offering.GPU.Name, GPUCount: p.Offering.GPUCount, Instances: p.Instances, Interconnect: p.Offering.Interconnect,
		Network: NetworkJSON{Kind: p.Offering.Network(), Gbps: optNum(p.Offering.NetworkGbps), Source: p.Offering.NetworkSource},
		Zone:    p.Zone, ThroughputEstimate: estimateJSON(p), PricingModel: p.Model, Term: p.Term, Payment: p.Payment, BlockDays: p.BlockDays, PriceAsOf: p.PriceAsOf, PriceAgeDays: p.PriceAgeDays, Stale: p.Stale, Mix: p.Mix, TotalCost: money.Number(p.Total.Value), Currency: string(p.Currency),
		PricePerHour:  money.NullNumber(p.PricePerHour),
		ExpectedHours: math.Round(p.ExpectedHours*100) / 100, PMissDeadline: pMiss(p), UpfrontCash: money.Number(p.UpfrontCash.Value),
		RelSpeed: math.Round(p.Speed*1000) / 1000, Breakdown: bd,
		HorizonMonths: math.Round(p.HorizonMonths*1e4) / 1e4, CashFlows: CashFlowsJSON(p.CashFlows), NotPriced: p.NotPriced,
		Explanation: p.Explanation, Risks: nonNil(p.Risks), Ecosystem: nonNil(p.Ecosystem), AsAsked: p.AsAsked,
		SpotFloorCost: money.NullNumber(p.SpotFloor), SpotRegret: p.SpotRegret, SpotRegions: p.SpotRegions}
}

// pMiss is the share of runs that miss the deadline, or nil without one.
func pMiss(p *Plan) *float64 {
	if p.Deadline == 0 {
		return nil
	}
	v := math.Round(p.PMissDeadline*10000) / 10000
	return &v
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

// NewOutput is the JSON of an advise result.
func NewOutput(res *Result, req *Request, a *Advisor) Output {
	out := Output{Excluded: res.Excluded, Summary: res.Summary, Violation: res.Violation, Plans: []PlanJSON{}}
	if out.Excluded == nil {
		out.Excluded = []Excluded{}
	}
	for i := range res.Plans {
		out.Plans = append(out.Plans, PlanOutput(&res.Plans[i]))
	}
	for i := range res.Closest {
		out.Closest = append(out.Closest, PlanOutput(&res.Closest[i]))
	}
	sc := req.Scenario
	out.Inputs = map[string]any{
		"scenario": sc.Name, "reference_gpu": req.Ref.Name, "reference_gpu_count": req.RefCount, "work_gpu_hours": req.WorkGPUHours, "hours_per_month": req.HoursPerMonth,
		"bursty": req.Bursty, "horizon_months": req.HorizonMonths, "deadline_hours": req.Deadline, "objective": req.Objective,
		"precision": sc.Precision, "bandwidth_weight": sc.BandwidthWeight, "comm_heavy": sc.CommHeavy, "min_gpu_memory_gib": sc.MinGPUMemoryGiB,
		"reference_parameters": sc.ReferenceParameters, "samples_per_gpu_step": sc.SamplesPerGPUStep, "mfu": sc.MFU, "overlap": sc.Overlap,
		"communication": a.Scenarios.Comm, "allow_slow_network": req.AllowSlowNetwork, "currency": string(a.Currency),
	}
	if req.Budget.Valid {
		out.Inputs["budget"] = money.Number(req.Budget.Decimal)
	}
	out.Inputs["accelerators"] = req.AcceleratorChoice()
	if req.Ask != nil {
		out.Inputs["ask"] = map[string]any{"gpu": req.Ask.Name, "count": req.Ask.Count, "hours": req.Ask.Hours}
	}
	if req.SpotRegions > 1 {
		out.Inputs["spot_regions"] = req.SpotRegions
	}
	if res.TimeBudgetHours > 0 {
		out.Inputs["time_budget_hours"] = res.TimeBudgetHours
		out.Inputs["time_budget"] = "default: no --deadline given; plans scale out (up to --max-nodes) to finish within it; --deadline sets yours"
	}
	if mi := ModelInputs(req); mi != nil {
		out.Inputs["model"] = mi
	}
	return out
}

func optNum(f float64) *float64 {
	if f == 0 {
		return nil
	}
	return &f
}

// MaxCashFlowMonth bounds the months of cash flows read back from JSON: a
// plan's horizon is at most MaxHorizonMonths.
const MaxCashFlowMonth = MaxHorizonMonths

// ParseCashFlows reads cash flows back from advise -o json (the server's
// plan page): each kind one of the engine's, months 0 ≤ from ≤ to ≤
// MaxCashFlowMonth, every amount given. The error names the flow and field.
func ParseCashFlows(js []CashFlowJSON) (cost.Schedule, error) {
	s := make(cost.Schedule, 0, len(js))
	for i, j := range js {
		if !slices.Contains(cost.FlowKinds, j.Kind) {
			return nil, fmt.Errorf("cash_flows[%d].kind %q: want one of %s", i, j.Kind, strings.Join(cost.FlowKinds, ", "))
		}
		if j.FromMonth < 0 || j.ToMonth < j.FromMonth || j.ToMonth > MaxCashFlowMonth {
			return nil, fmt.Errorf("cash_flows[%d]: months %d to %d: want 0 ≤ from_month ≤ to_month ≤ %d", i, j.FromMonth, j.ToMonth, MaxCashFlowMonth)
		}
		if j.PerMonth == nil {
			return nil, fmt.Errorf("cash_flows[%d].per_month: missing", i)
		}
		v, err := decimal.NewFromString(j.PerMonth.String())
		if err != nil || v.Abs().GreaterThan(money.MaxAmount) {
			return nil, fmt.Errorf("cash_flows[%d].per_month %s: want a number of at most %s in size", i, j.PerMonth, money.MaxAmount)
		}
		s = append(s, cost.Flow{Kind: j.Kind, From: j.FromMonth, To: j.ToMonth, PerMonth: v})
	}
	return s, nil
}
