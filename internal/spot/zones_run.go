package spot

import (
	"fmt"
	"math"
)

// firstZone is the config of the first zone alone: where the policies that
// do not choose zones run when there are several.
func (c *Config) firstZone() Config {
	f := *c
	f.Zones = c.Zones[:1]
	return f.oneZone()
}

// zoneNames are the zones' names, for timelines.
func (c *Config) zoneNames() []string {
	out := make([]string, len(c.Zones))
	for i, z := range c.Zones {
		out[i] = z.Name
	}
	return out
}

// checkZoneOffsets: start offsets must lie inside every zone's trace.
func (c *Config) checkZoneOffsets() error {
	for i, o := range c.Offsets {
		for _, z := range c.Zones {
			rp, ok := z.Model.(*Replay)
			if !ok {
				return fmt.Errorf("start offsets need trace replays in every zone; zone %s is %s", z.Name, z.Model.Describe(c.Job.Nodes))
			}
			if total := rp.Trace.Hours(); !(o >= 0 && o < total) {
				return fmt.Errorf("start offset %d (%g h) is outside the trace of zone %s (0 to %g h)", i+1, o, z.Name, total)
			}
		}
	}
	return nil
}

// runs is the number of runs of a multi-zone config.
func (c *Config) zoneRuns() int {
	switch {
	case len(c.Offsets) > 0:
		return len(c.Offsets)
	case c.Runs > 0:
		return c.Runs
	}
	if _, ok := c.Zones[0].Model.(*Replay); ok {
		return DefaultOffsetRuns
	}
	return DefaultRuns
}

// estimateZoneEvents is roughly the events one run sees: its checkpoints
// and the availability changes of every zone.
func estimateZoneEvents(c *Config) float64 {
	var n float64
	for _, z := range c.Zones {
		zc := *c
		zc.Zones, zc.Model = nil, z.Model
		n += estimateEvents(&zc)
	}
	return n
}

// odCostZones is the job's cost on on-demand alone in its cheapest zone.
func (c *Config) odCostZones(work float64) float64 {
	best := math.Inf(1)
	for i := range c.Zones {
		j := c.Job
		j.Work = work
		j.ODPrice = c.Zones[i].odPrice(&c.Job)
		best = math.Min(best, j.ODCost())
	}
	return best
}

// zoneMinPrices are the lowest spot and on-demand prices of any zone.
func (c *Config) zoneMinPrices() (spot, od float64) {
	spot, od = math.Inf(1), math.Inf(1)
	for i := range c.Zones {
		z := &c.Zones[i]
		od = math.Min(od, z.odPrice(&c.Job))
		if rp, ok := z.Model.(*Replay); ok && rp.Trace.Prices != nil {
			spot = math.Min(spot, rp.runsFor(1).prices.min())
			continue
		}
		spot = math.Min(spot, z.spotPrice(&c.Job))
	}
	return spot, od
}
