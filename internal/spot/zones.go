package spot

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"unicode"
)

// Zone is one place the job may run on spot: its own availability and prices.
type Zone struct {
	Name      string  // "us-east-1a"
	Region    string  // moves between zones of different regions pay cross-region transfer
	Model     Model   // this zone's availability (a *Replay of its trace, a Hazard, a TwoState)
	SpotPrice float64 // per node-hour; 0: Job.SpotPrice (a trace's prices replace it where it has them)
	ODPrice   float64 // per node-hour on-demand in this zone; 0: Job.ODPrice
}

// MaxZones bounds the zones of one simulation.
const MaxZones = 64

// spotPrice is the zone's spot price per node-hour for the job.
func (z *Zone) spotPrice(j *Job) float64 {
	if z.SpotPrice > 0 {
		return z.SpotPrice
	}
	return j.SpotPrice
}

// odPrice is the zone's on-demand price per node-hour for the job.
func (z *Zone) odPrice(j *Job) float64 {
	if z.ODPrice > 0 {
		return z.ODPrice
	}
	return j.ODPrice
}

// multiZone reports whether the config simulates several zones.
func (c *Config) multiZone() bool { return len(c.Zones) >= 2 }

// withZones is the config in its one shape: a job in one zone or several.
// A config without zones has one, of its model at the job's prices.
func (c Config) withZones() Config {
	if len(c.Zones) == 0 {
		c.Zones = []Zone{{Model: c.Model}}
	}
	return c
}

// withZones gives every config its zones (copies: the callers' are left as they are).
func withZones(cfgs []Config) []Config {
	out := make([]Config, len(cfgs))
	for i := range cfgs {
		out[i] = cfgs[i].withZones()
	}
	return out
}

// checkZones validates the zones and the move costs of a config with
// several zones: errors name the zone or the entry and what is allowed.
func (c *Config) checkZones() error {
	n := len(c.Zones)
	if n > MaxZones {
		return fmt.Errorf("%d zones: want at most %d", n, MaxZones)
	}
	var total float64
	for i := range c.Zones {
		z := &c.Zones[i]
		if z.Model == nil {
			return fmt.Errorf("zone %d (%s): no availability model", i+1, z.Name)
		}
		if !(z.SpotPrice >= 0) || !(z.ODPrice >= 0) || math.IsInf(z.SpotPrice, 0) || math.IsInf(z.ODPrice, 0) {
			return fmt.Errorf("zone %d (%s): prices spot %g, on-demand %g: want >= 0 per node-hour (0: the job's)", i+1, z.Name, z.SpotPrice, z.ODPrice)
		}
		if !(z.odPrice(&c.Job) > 0) {
			return fmt.Errorf("zone %d (%s): no on-demand price: give the zone's or the job's", i+1, z.Name)
		}
		if rp, ok := z.Model.(*Replay); ok {
			h := rp.Trace.Hours()
			if total == 0 {
				total = h
			} else if math.Abs(h-total) > 1e-6*total {
				return fmt.Errorf("zone %d (%s): its trace spans %.4g h, another zone's %.4g h: pair the traces first (PairTraces) so that they cover the same time", i+1, z.Name, h, total)
			}
		}
	}
	if c.MoveCost != nil {
		if len(c.MoveCost) != n {
			return fmt.Errorf("move costs: %d rows for %d zones; want one row per zone", len(c.MoveCost), n)
		}
		for i, row := range c.MoveCost {
			if len(row) != n {
				return fmt.Errorf("move costs: row %d has %d entries for %d zones", i+1, len(row), n)
			}
			for k, v := range row {
				if !(v >= 0) || math.IsInf(v, 0) {
					return fmt.Errorf("move cost from zone %d to zone %d is %g: want an amount >= 0", i+1, k+1, v)
				}
			}
		}
	}
	return nil
}

// moveCost is the money of one move from zone a to zone b.
func (c *Config) moveCost(a, b int) float64 {
	if a == b || a < 0 || c.MoveCost == nil {
		return 0
	}
	return c.MoveCost[a][b]
}

// ZoneOfFile names the zone and region of a trace file by the Can't Be Late
// naming, zone_instance_n.json: "us-east-1a_v100_1.json" is zone us-east-1a
// in region us-east-1 (the trailing zone letter stripped), and
// "us-central1-a_c3-88.json" zone us-central1-a in region us-central1.
func ZoneOfFile(path string) (zone, region string) {
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	zone, _, _ = strings.Cut(base, "_")
	return zone, RegionOfZone(zone)
}

// RegionOfZone strips a zone's letter: us-east-1a → us-east-1,
// us-central1-a → us-central1; a name without one is its own region.
func RegionOfZone(zone string) string {
	n := len(zone)
	switch {
	case n >= 3 && zone[n-2] == '-' && unicode.IsLower(rune(zone[n-1])):
		return zone[:n-2]
	case n >= 2 && unicode.IsLower(rune(zone[n-1])) && unicode.IsDigit(rune(zone[n-2])):
		return zone[:n-1]
	}
	return zone
}

// PairTraces lines up the traces of several zones by time from their
// starts, so that tick i of each is the same moment: the traces must share
// their tick (gap_seconds; an error names the two that differ), and those of
// different lengths are cut to the common span (the shortest). It returns
// the cut traces (the originals are not changed) and a sentence that says
// how they were paired. The traces are taken to start at the same time: the
// Can't Be Late traces of one collection were recorded together.
func PairTraces(ts []*Trace) ([]*Trace, string, error) {
	if len(ts) == 0 {
		return nil, "", fmt.Errorf("no traces to pair")
	}
	n := len(ts[0].Data)
	for _, t := range ts[1:] {
		if t.GapSeconds != ts[0].GapSeconds {
			return nil, "", fmt.Errorf("traces %s (%g s ticks) and %s (%g s ticks) have different ticks; zones are paired tick by tick, so give traces with the same gap_seconds", ts[0].Name, ts[0].GapSeconds, t.Name, t.GapSeconds)
		}
		n = min(n, len(t.Data))
	}
	longest := 0
	out := make([]*Trace, len(ts))
	for i, t := range ts {
		longest = max(longest, len(t.Data))
		c := *t
		c.Data = t.Data[:n]
		if t.Prices != nil {
			c.Prices = t.Prices[:n]
		}
		out[i] = &c
	}
	gap := ts[0].GapSeconds
	span := float64(n) * gap / 3600
	note := fmt.Sprintf("%d zones paired tick by tick from their starts: %d ticks of %g s (%.1f days) each", len(ts), n, gap, span/24)
	if longest > n {
		note = fmt.Sprintf("%d zones paired by time from their starts over their common span only: %d ticks of %g s (%.1f days); the longer traces' last %.1f days are unused", len(ts), n, gap, span/24, float64(longest-n)*gap/86400)
	}
	return out, note, nil
}

// runs is the number of runs the config (with its zones) asks for.
func (c *Config) runs() int {
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

// checkOffsets: start offsets need a trace to start into, inside it, in
// every zone; several zones are checked first (checkZones).
func (c *Config) checkOffsets() error {
	if c.multiZone() {
		if err := c.checkZones(); err != nil {
			return err
		}
	}
	for i, o := range c.Offsets {
		for _, z := range c.Zones {
			rp, ok := z.Model.(*Replay)
			switch {
			case !ok && !c.multiZone():
				return fmt.Errorf("start offsets need a trace replay, not %s", z.Model.Describe(c.Job.Nodes))
			case !ok:
				return fmt.Errorf("start offsets need trace replays in every zone; zone %s is %s", z.Name, z.Model.Describe(c.Job.Nodes))
			}
			if total := rp.Trace.Hours(); !(o >= 0 && o < total) {
				if !c.multiZone() {
					return fmt.Errorf("start offset %d (%g h) is outside the trace %s (0 to %g h)", i+1, o, rp.Trace.Name, total)
				}
				return fmt.Errorf("start offset %d (%g h) is outside the trace of zone %s (0 to %g h)", i+1, o, z.Name, total)
			}
		}
	}
	return nil
}

// zoneNames are the zones' names, for timelines.
func (c *Config) zoneNames() []string {
	out := make([]string, len(c.Zones))
	for i, z := range c.Zones {
		out[i] = z.Name
	}
	return out
}

// odCost is the job's cost for work hours on on-demand alone in its cheapest zone.
func (c *Config) odCost(work float64) float64 {
	best := math.Inf(1)
	for i := range c.Zones {
		j := c.Job
		j.Work = work
		j.ODPrice = c.Zones[i].odPrice(&c.Job)
		best = math.Min(best, j.ODCost())
	}
	return best
}

// minPrices are the lowest spot and on-demand prices per node-hour of any
// zone (a trace's own spot prices where it has them).
func (c *Config) minPrices() (spot, od float64) {
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
