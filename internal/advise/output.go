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
	"github.com/gpuscout/gpuscout/internal/plandoc"
)

// The JSON of advise -o json is plandoc's, the schema the server validates
// an uploaded plan with and the dashboard reads it with: one declaration.
type (
	PlanJSON     = plandoc.Plan     // one plan of advise -o json
	EstimateJSON = plandoc.Estimate // whose figures stand in for a GPU's
	NetworkJSON  = plandoc.Network  // an offering's network between instances
	// CashFlowJSON is a run of equal monthly payments of one kind.
	CashFlowJSON = plandoc.CashFlow
	// Output is advise -o json: the plans, what was left out and why, and
	// the inputs as understood (a map: plandoc.Inputs reads it back).
	Output = plandoc.Output[map[string]any]
)

func estimateJSON(p *Plan) *EstimateJSON {
	if p.EstimatedFrom == nil || p.Offering.GPU.Estimate == nil {
		return nil
	}
	e := p.Offering.GPU.Estimate
	return &EstimateJSON{From: p.EstimatedFrom.Name, Uncertainty: e.Uncertainty, Basis: e.Basis, Source: e.Source}
}

// CashFlowsJSON is a schedule as JSON; an empty schedule is an empty list.
func CashFlowsJSON(s cost.Schedule) []CashFlowJSON {
	out := make([]CashFlowJSON, 0, len(s))
	for _, f := range s {
		out = append(out, CashFlowJSON{Kind: f.Kind, FromMonth: f.From, ToMonth: f.To, PerMonth: money.Number(f.PerMonth)})
	}
	return out
}

// PlanOutput is a plan's JSON.
func PlanOutput(p *Plan) PlanJSON {
	bd := map[string]*json.Number{}
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
	out := Output{Excluded: make([]plandoc.Excluded, len(res.Excluded)), Summary: res.Summary, Violation: res.Violation, Plans: []PlanJSON{}}
	for i, e := range res.Excluded {
		out.Excluded[i] = plandoc.Excluded(e)
	}
	for i := range res.Plans {
		out.Plans = append(out.Plans, PlanOutput(&res.Plans[i]))
	}
	for i := range res.Closest {
		out.Closest = append(out.Closest, PlanOutput(&res.Closest[i]))
	}
	sc := req.Scenario
	// What was not given or does not apply is null, never 0 (plandoc.Inputs).
	var refParams, samples, overlap *float64
	if sc.CommHeavy { // the communication model's parameters: only where it applies
		refParams, samples, overlap = optNum(sc.ReferenceParameters), optNum(sc.SamplesPerGPUStep), &sc.Overlap
	}
	out.Inputs = map[string]any{
		"scenario": sc.Name, "reference_gpu": req.Ref.Name, "reference_gpu_count": req.RefCount, "work_gpu_hours": optNum(req.WorkGPUHours), "hours_per_month": optNum(req.HoursPerMonth),
		"bursty": req.Bursty, "horizon_months": optNum(req.HorizonMonths), "deadline_hours": optNum(req.Deadline), "objective": req.Objective,
		"precision": sc.Precision, "bandwidth_weight": sc.BandwidthWeight, "comm_heavy": sc.CommHeavy, "min_gpu_memory_gib": sc.MinGPUMemoryGiB,
		"reference_parameters": refParams, "samples_per_gpu_step": samples, "mfu": optNum(sc.MFU), "overlap": overlap,
		"communication": a.Scenarios.Comm, "allow_slow_network": req.AllowSlowNetwork, "currency": string(a.Currency),
	}
	if req.Budget.Valid {
		out.Inputs["budget"] = money.Number(req.Budget.Decimal)
	}
	out.Inputs["accelerators"] = req.AcceleratorChoice()
	if req.RefDefault {
		out.Inputs["reference_gpu_default"] = true // no --gpu, --work or --model named the load's GPU and size
	}
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

// optNum is f, or nil (JSON null) where f is 0: not given, not known.
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
