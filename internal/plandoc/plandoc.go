// Package plandoc is the schema of an uploaded plan: the JSON `gpuscout
// advise -o json` writes (advise's JSON types are these, aliased), which
// `advise --upload` sends, the server validates (kind plan) and the
// dashboard's plan pages read. It reads strictly (jsonfields: one JSON
// value, each key once, no field the schema does not have, numbers
// bounded); Validate then checks each field's range.
//
// advise writes Output[map[string]any] (its inputs are a map its tests
// index); readers take Document, the same shape with typed Inputs. A key
// advise adds to its inputs must be added to Inputs: the CLI's test of
// its uploads decodes real advise -o json output with Decode.
package plandoc

import "encoding/json"

// Output is the document: the plans, what was left out and why, and the
// inputs as understood. In is the inputs' type: advise writes a map,
// readers read Inputs.
type Output[In any] struct {
	Plans     []Plan     `json:"plans"`
	Excluded  []Excluded `json:"excluded"`
	Summary   []string   `json:"summary"`
	Violation string     `json:"violation,omitempty"`
	Closest   []Plan     `json:"closest,omitempty"`
	Inputs    In         `json:"inputs"`
}

// Document is an uploaded plan as the server and the dashboard read it.
type Document Output[Inputs]

// Plan is one plan of advise -o json.
type Plan struct {
	Rank         int     `json:"rank"`
	Provider     string  `json:"provider"`
	InstanceType string  `json:"instance_type"`
	Region       string  `json:"region"`
	GPU          string  `json:"gpu"`
	GPUCount     float64 `json:"gpu_count"`
	Instances    int     `json:"instances"`
	Interconnect string  `json:"interconnect"`
	Network      Network `json:"network"`
	PricingModel string  `json:"pricing_model"`
	Term         string  `json:"term"`
	Payment      string  `json:"payment"`
	BlockDays    int     `json:"block_days,omitempty"` // a Capacity Block plan: the block's length
	// PriceAsOf is the date of the oldest price the plan bills at
	// (YYYY-MM-DD, or YYYY / YYYY-MM for a page dated only that far; ""
	// where none is dated), its age in days (for a year or month, the most
	// it can be), and whether a price it bills at is past the age rule
	// (catalog.PriceAge: a year; 30 days for a spot price).
	PriceAsOf     string                  `json:"price_as_of"`
	PriceAgeDays  int                     `json:"price_age_days"`
	Stale         bool                    `json:"stale"`
	Mix           string                  `json:"mix,omitempty"`
	TotalCost     *json.Number            `json:"total_cost"`
	Currency      string                  `json:"currency"`
	PricePerHour  *json.Number            `json:"price_per_hour"` // per instance-hour: the list price (on-demand, spot) or the commitment's effective price
	ExpectedHours float64                 `json:"expected_hours"`
	PMissDeadline *float64                `json:"p_miss_deadline"` // null without a deadline
	UpfrontCash   *json.Number            `json:"upfront_cash"`
	RelSpeed      float64                 `json:"relative_speed_per_gpu"`
	Breakdown     map[string]*json.Number `json:"cost_breakdown"`
	// HorizonMonths is the window the cash flows cover (a job's: its
	// billed hours / 730); CashFlows the payments in it, in Currency.
	HorizonMonths float64    `json:"horizon_months"`
	CashFlows     []CashFlow `json:"cash_flows"`
	NotPriced     []string   `json:"cash_flows_not_priced,omitempty"` // parts left out of the total and the cash flows: no sourced price
	Explanation   []string   `json:"explanation"`
	Risks         []string   `json:"capacity_risks"`
	Ecosystem     []string   `json:"ecosystem"`
	AsAsked       bool       `json:"as_asked"`
	// SpotFloorCost and SpotRegret: a spot plan's hindsight optimum on the
	// same simulated availability (money, plan currency) and the plan's
	// cost over it (a share); null where not simulated (no deadline, not spot).
	SpotFloorCost *json.Number `json:"spot_floor_cost"`
	SpotRegret    *float64     `json:"spot_regret"`
	// ThroughputEstimate: the plan's GPU has no published or measured
	// throughput and another GPU's figures stand in; null otherwise.
	ThroughputEstimate *Estimate `json:"throughput_estimate"`
	// Zone: where a spot plan is priced and runs (the region's cheapest
	// zone with a spot price); absent where the region has one price.
	Zone string `json:"zone,omitempty"`
	// SpotRegions: the regions a spot plan may fail over among (--spot-regions),
	// its own region first; absent where it stays in one.
	SpotRegions []string `json:"spot_regions,omitempty"`
}

// Estimate says whose figures stand in for a GPU's, how far off the
// speed may be (a share: 0.5 is ±50%) and why (gpus.yaml estimate).
type Estimate struct {
	From        string  `json:"from"`
	Uncertainty float64 `json:"uncertainty"`
	Basis       string  `json:"basis"`
	Source      string  `json:"source"`
}

// CashFlow is a run of equal monthly payments of one kind (upfront,
// commitment, usage, egress, storage, promotion, credit), as the cost
// engine schedules them: PerMonth paid at each of months FromMonth through
// ToMonth. Month 0 is the start (upfront fees, fees billed in advance);
// month j is the end of the j-th month. A 3-year commitment is two runs,
// not 74 lines; the plan's total is Σ per_month × (to_month − from_month + 1).
type CashFlow struct {
	Kind      string       `json:"kind"`
	FromMonth int          `json:"from_month"`
	ToMonth   int          `json:"to_month"`
	PerMonth  *json.Number `json:"per_month"`
}

// Network is an offering's network between instances: kind (efa,
// infiniband, gpudirect-tcpx, gpudirect-tcpxo, rdma, ethernet, unknown), Gbps (null when
// unknown) and the source id.
type Network struct {
	Kind   string   `json:"kind"`
	Gbps   *float64 `json:"gbps"`
	Source string   `json:"source,omitempty"`
}

// Excluded is an offering family left out, and why.
type Excluded struct {
	What   string `json:"what"`
	Reason string `json:"reason"`
}

// Inputs are the inputs of a plan as advise understood them (advise's
// NewOutput writes them as a map with these keys). Model is the model
// sizing (--model), kept as written: its keys follow the model table.
//
// What was not given, or does not apply, is null, never 0 (zero is a
// value): work_gpu_hours (a load, not a job), hours_per_month (a job or a
// bursty load), horizon_months (a job), deadline_hours (no --deadline),
// mfu (a scenario without one), and reference_parameters,
// samples_per_gpu_step and overlap (a scenario without the communication
// model). An upload from before they were null has 0 there: readers take
// 0 as none too.
type Inputs struct {
	Accelerators        string         `json:"accelerators"`
	AllowSlowNetwork    bool           `json:"allow_slow_network"`
	Ask                 *Ask           `json:"ask"`
	BandwidthWeight     float64        `json:"bandwidth_weight"`
	Budget              *json.Number   `json:"budget"`
	Bursty              bool           `json:"bursty"`
	CommHeavy           bool           `json:"comm_heavy"`
	Communication       *Communication `json:"communication"`
	Currency            string         `json:"currency"`
	DeadlineHours       *float64       `json:"deadline_hours"`
	HorizonMonths       *float64       `json:"horizon_months"`
	HoursPerMonth       *float64       `json:"hours_per_month"`
	MFU                 *float64       `json:"mfu"`
	MinGPUMemoryGiB     float64        `json:"min_gpu_memory_gib"`
	Model               map[string]any `json:"model"`
	Objective           string         `json:"objective"`
	Overlap             *float64       `json:"overlap"`
	Precision           string         `json:"precision"`
	ReferenceGPU        string         `json:"reference_gpu"`
	ReferenceCount      float64        `json:"reference_gpu_count"`   // 0: an upload from before it was recorded
	ReferenceDefault    bool           `json:"reference_gpu_default"` // the reference GPU and count are advise's default, not given
	ReferenceParameters *float64       `json:"reference_parameters"`
	SamplesPerGPUStep   *float64       `json:"samples_per_gpu_step"`
	Scenario            string         `json:"scenario"`
	SpotRegions         int            `json:"spot_regions"`
	TimeBudget          string         `json:"time_budget"`
	TimeBudgetHours     float64        `json:"time_budget_hours"`
	WorkGPUHours        *float64       `json:"work_gpu_hours"`
}

// Ask is what the user asked for by name: a GPU, a count, for hours.
type Ask struct {
	GPU   string  `json:"gpu"`
	Count float64 `json:"count"`
	Hours float64 `json:"hours"`
}

// Communication is the communication model's parameters advise used
// (scenarios.yaml communication).
type Communication struct {
	AssumedLinkGBs       float64 `json:"assumed_link_gbs"`
	AssumedNetworkGbps   float64 `json:"assumed_network_gbps"`
	ReferenceNetworkGbps float64 `json:"reference_network_gbps"`
	BucketBytes          float64 `json:"bucket_bytes"`
	CollectiveLatencyUS  float64 `json:"collective_latency_us"`
}

// Value is *v, or 0 where v is null (not given): for readers whose own
// types say "none" with 0.
func Value(v *float64) float64 {
	if v == nil {
		return 0
	}
	return *v
}
