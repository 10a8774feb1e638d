package advise

import (
	"encoding/json"
	"math"

	"github.com/gpuscout/gpuscout/internal/money"
)

// PlanJSON is one plan of advise -o json.
type PlanJSON struct {
	Rank          int            `json:"rank"`
	Provider      string         `json:"provider"`
	InstanceType  string         `json:"instance_type"`
	Region        string         `json:"region"`
	GPU           string         `json:"gpu"`
	GPUCount      float64        `json:"gpu_count"`
	Instances     int            `json:"instances"`
	Interconnect  string         `json:"interconnect"`
	Network       NetworkJSON    `json:"network"`
	PricingModel  string         `json:"pricing_model"`
	Term          string         `json:"term"`
	Payment       string         `json:"payment"`
	Mix           string         `json:"mix,omitempty"`
	TotalCost     *json.Number   `json:"total_cost"`
	Currency      string         `json:"currency"`
	PricePerHour  *json.Number   `json:"price_per_hour"` // per instance-hour: the list price (on-demand, spot) or the commitment's effective price
	ExpectedHours float64        `json:"expected_hours"`
	PMissDeadline *float64       `json:"p_miss_deadline"` // null without a deadline
	UpfrontCash   *json.Number   `json:"upfront_cash"`
	RelSpeed      float64        `json:"relative_speed_per_gpu"`
	Breakdown     map[string]any `json:"cost_breakdown"`
	Explanation   []string       `json:"explanation"`
	Risks         []string       `json:"capacity_risks"`
	Ecosystem     []string       `json:"ecosystem"`
	AsAsked       bool           `json:"as_asked"`
	// SpotFloorCost and SpotRegret: a spot plan's hindsight optimum on the
	// same simulated availability (money, plan currency) and the plan's
	// cost over it (a share); null where not simulated (no deadline, not spot).
	SpotFloorCost *json.Number `json:"spot_floor_cost"`
	SpotRegret    *float64     `json:"spot_regret"`
	// SpotRegions: the regions a spot plan may fail over among (--spot-regions),
	// its own region first; absent where it stays in one.
	SpotRegions []string `json:"spot_regions,omitempty"`
}

// NetworkJSON is an offering's network between instances: kind (efa,
// infiniband, gpudirect-tcpx, rdma, ethernet, unknown), Gbps (null when
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
		Network:      NetworkJSON{Kind: p.Offering.Network(), Gbps: optNum(p.Offering.NetworkGbps), Source: p.Offering.NetworkSource},
		PricingModel: p.Model, Term: p.Term, Payment: p.Payment, Mix: p.Mix, TotalCost: money.Number(p.Total.Value), Currency: string(p.Currency),
		PricePerHour:  money.NullNumber(p.PricePerHour),
		ExpectedHours: math.Round(p.ExpectedHours*100) / 100, PMissDeadline: pMiss(p), UpfrontCash: money.Number(p.UpfrontCash.Value),
		RelSpeed: math.Round(p.Speed*1000) / 1000, Breakdown: bd, Explanation: p.Explanation, Risks: nonNil(p.Risks), Ecosystem: nonNil(p.Ecosystem), AsAsked: p.AsAsked,
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
		"scenario": sc.Name, "reference_gpu": req.Ref.Name, "work_gpu_hours": req.WorkGPUHours, "hours_per_month": req.HoursPerMonth,
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
