package advise

import (
	"fmt"
	"math"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
)

type candidate struct {
	o         *catalog.Offering
	speed     float64
	speedNote string
	eff       float64 // communication efficiency relative to the user's shape (comm.go), at the plan's instance count
	comm      *commModel
	shape     shape // one instance's GPUs, link and network
	commNote  string
	nodeSpeed float64 // ref-GPU equivalents per instance
	instances int
	minNodes  int     // instances that hold the model's memory (sizing.go); 0 or 1: one
	hours     float64 // wall hours of the job (jobs)
	usage     cost.Usage
	billNote  string // a job shorter than the billing minimum: what is billed
	// serving: a served model's replica on this offering (serving.go);
	// its stages are the instances one replica spans. nil without one.
	serving *servingPlan
	// estimatedFrom: the GPU whose figures stand in for this one's
	// (gpus.yaml estimate); nil where its own figures give the speed.
	estimatedFrom *catalog.GPU
}

// size works out how many instances a candidate needs and how long the job takes.
func (a *Advisor) size(req *Request, c *candidate) error {
	u := req.Usage
	switch {
	case req.WorkGPUHours > 0:
		// hours on k instances: the work, on the user's shape, over k
		// instances' GPUs at their speed and communication efficiency.
		hours := func(k int) (float64, float64) {
			e, _ := c.comm.efficiency(c.shape.at(k))
			return req.WorkGPUHours / (c.o.GPUCount * c.speed * float64(k) * e), e
		}
		// The user's own shape takes the time they said (--gpu A100:4 --for 7d:
		// seven days on any A100 variant): their statement, not the model,
		// measures it; more instances (a deadline) scale from there.
		// An ask of several nodes is already the model's own reference (the
		// user's GPUs on reference_network_gbps): an offering's slower
		// network makes its copy of the shape slower, which a rescale to
		// the user's hours would hide.
		if req.Ask.instances(c.o) == 1 && req.Ask.Hours > 0 {
			if h1, _ := hours(1); h1 > 0 {
				scale := req.Ask.Hours / h1
				model := hours
				hours = func(k int) (float64, float64) {
					h, e := model(k)
					return h * scale, e
				}
			}
		}
		// Scale out to the deadline, or to the time the user has (--for),
		// or to the default budget: the plan finishes in time on the fewest
		// instances that make it.
		k := max(1, c.minNodes)
		h, e := hours(k)
		if limit := req.wallLimit(); limit > 0 && h > limit {
			if why := networkRefusal(req, a.Catalog.Provider(c.o.Provider), c.o); why != "" && req.MaxNodes > k {
				return fmt.Errorf("%s take %.1f h, past %s, so it needs more, and %s", cost.Count(k, "instance", "instances"), h, req.limitName(), why)
			}
			for k <= req.MaxNodes && h > limit {
				k++
				h, e = hours(k)
			}
			if k > req.MaxNodes {
				// Priced anyway on the most it may use: the plan misses the
				// limit, and says by how much (its hours on those instances).
				k = req.MaxNodes
				h, e = hours(k)
			}
		}
		_, r := c.comm.efficiency(c.shape.at(k))
		c.instances, c.hours, c.eff, c.commNote = k, h, e, c.comm.note(r, c.shape.at(k))
		c.nodeSpeed = c.o.GPUCount * c.speed * e
		u.DurationHours = a.billedHours(c)
		u.HoursPerMonth = 0
		u.HorizonMonths = 0
	case req.Bursty:
		c.instances = int(math.Ceil(req.Base/c.nodeSpeed - 1e-9))
		u.HoursPerMonth = catalog.HoursPerMonth
		u.HorizonMonths = req.HorizonMonths
	default:
		c.instances = int(math.Ceil(req.RefCount/c.nodeSpeed - 1e-9))
		if st := c.stages(); st > 1 { // whole replicas of st instances
			c.instances = st * int(math.Ceil(float64(c.instances)/float64(st)-1e-9))
		}
		u.HoursPerMonth = req.HoursPerMonth
		u.HorizonMonths = req.HorizonMonths
	}
	c.instances = max(c.instances, c.minNodes, 1)
	if c.instances > req.MaxNodes {
		return fmt.Errorf("needs %d instances, more than %d", c.instances, req.MaxNodes)
	}
	if why := networkRefusal(req, a.Catalog.Provider(c.o.Provider), c.o); why != "" && c.instances > 1 {
		return fmt.Errorf("needs %d instances, and %s", c.instances, why)
	}
	u.Instances = c.instances
	u.Egress = scaleEgress(req.Usage.Egress, 1) // shared by the whole plan, not per instance
	u, err := u.Resolved()
	if err != nil {
		return err
	}
	c.usage = u
	return nil
}

// billedHours is how long a job on the candidate is billed: its duration,
// or the provider's billing minimum when the job is shorter (and at least
// cost.MinBillableHours, the shortest use the cost engine prices).
func (a *Advisor) billedHours(c *candidate) float64 {
	minimum, why := cost.MinBillableHours, fmt.Sprintf("%s's billing minimum is not sourced; billed %s, the shortest use any sourced provider bills", c.o.Provider, cost.FormatHours(cost.MinBillableHours))
	if p := a.Catalog.Provider(c.o.Provider); p != nil && p.BillingMinimumSeconds > 0 {
		minimum = math.Max(minimum, p.BillingMinimumSeconds/3600)
		why = fmt.Sprintf("billed the %g s minimum (%s bills %s, %s)", p.BillingMinimumSeconds, c.o.Provider, p.Billing, p.BillingSource)
	}
	if c.hours >= minimum {
		return c.hours
	}
	c.billNote = fmt.Sprintf("the job runs %s, less than the billing minimum: %s", cost.FormatHours(c.hours), why)
	return minimum
}

func scaleEgress(e map[string]float64, f float64) map[string]float64 {
	out := map[string]float64{}
	for k, v := range e {
		out[k] = v * f
	}
	return out
}

// stages is the instances one served replica spans; 1 where it fits one.
func (c *candidate) stages() int {
	if c.serving == nil {
		return 1
	}
	return c.serving.stages
}
