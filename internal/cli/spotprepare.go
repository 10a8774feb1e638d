package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/spot"
)

type spotInputs struct {
	cfg          spot.Config   // the job and the first model
	cfgs         []spot.Config // one per trace (or just cfg)
	pols         []spot.Policy
	currency     string
	model        string
	ckptMode     string
	traceNotes   []string // what a reader of the results must know about the traces (shorter than the job)
	bandNote     string
	hazard       float64 // per instance per hour (0 for traces)
	multi        []spot.Model
	multiNote    string
	priceSources []string
	traceNames   []string    // one per config, for replays
	offsets      []float64   // --offsets, or nil
	zones        *zoneInputs // --regions: several zones, or nil
}

// parseHoursOrZero is parseHours where zero, with or without a unit ("0",
// "0m", "0s"), is allowed.
func parseHoursOrZero(flag, s string) (float64, error) {
	h, err := cost.ParseNonNegativeDuration(s)
	if err != nil {
		return 0, usagef("--%s: %v", flag, err)
	}
	return h, nil
}

func parseHours(flag, s string) (float64, error) {
	h, err := cost.ParseDuration(s)
	if err != nil {
		return 0, usagef("--%s: %v", flag, err)
	}
	return h, nil
}

// maxHourlyPrice bounds a price per node-hour given on the command line
// (money.MaxHourly: 100,000 an hour in any currency).
var maxHourlyPrice = money.MaxHourly.InexactFloat64()

// prepare turns the flags into the simulations to run: the job
// (spotJob), its prices, the availability model, the checkpoint interval,
// the policies and, for several traces, one configuration each.
func (f *spotFlags) prepare(changed func(string) bool) (*spotInputs, error) {
	in := &spotInputs{}
	l, err := f.load()
	if err != nil {
		return nil, err
	}
	in.currency = string(l.currency)
	if in.cfg.Job, err = spotJob(f, changed); err != nil {
		return nil, err
	}
	band, err := f.prices(in, l, changed)
	if err != nil {
		return nil, err
	}
	if err := f.availability(in, l, band, changed); err != nil {
		return nil, err
	}
	job := &in.cfg.Job
	if job.ODPrice == 0 || (job.SpotPrice == 0 && !strings.Contains(strings.Join(in.priceSources, " "), "trace")) {
		if f.offering != "" {
			var lack, give []string
			if job.ODPrice == 0 {
				lack, give = append(lack, "on-demand"), append(give, "--od-price")
			}
			if job.SpotPrice == 0 {
				lack, give = append(lack, "spot"), append(give, "--spot-price")
			}
			return nil, usagef("--offering %s: the catalog has no sourced %s price for it: give %s, or choose an offering with both prices (offers --spot lists them)", f.offering, strings.Join(lack, " or "), strings.Join(give, " and "))
		}
		return nil, usagef("prices are missing: give --offering (with a sourced on-demand and spot price) or --spot-price and --od-price")
	}
	if err := f.checkpointing(in); err != nil {
		return nil, err
	}
	if in.cfg.Runs == 0 {
		in.cfg.Runs = f.runs
	}
	in.cfg.Seed = f.seed
	if f.maxEvents < 1000 || f.maxEvents > 10_000_000_000 {
		return nil, usagef("--max-events %d: want 1000 to 10000000000", f.maxEvents)
	}
	in.cfg.MaxEvents = f.maxEvents
	asg := spot.ASGMix{OnDemandBase: f.odBase, OnDemandPercent: f.odPercent}
	if in.zones != nil {
		if in.pols, err = f.zonePolicies(changed, asg); err != nil {
			return nil, err
		}
	} else if in.pols, err = spot.Policies(strings.Split(f.policy, ","), asg); err != nil {
		return nil, usagef("--policy: %v", err)
	}
	for _, p := range in.pols {
		if _, opt := p.(spot.Optimal); !opt && spot.ZoneAware(p) && in.multi != nil {
			return nil, usagef("--policy %s moves between zones: give the zones' traces with --regions %s, or leave it out to pool the traces as independent runs", p.Name(), p.Name())
		}
	}
	if err := job.Validate(); err != nil {
		return nil, asUsage(err)
	}
	in.model = in.cfg.Model.Describe(job.Nodes)
	if len(in.traceNotes) > 0 {
		in.model += "; " + strings.Join(in.traceNotes, "; ")
	}
	if in.multi != nil {
		in.model = "replay of " + in.multiNote
	}
	if in.zones != nil {
		in.model = in.zones.pairing
	}
	in.cfgs = []spot.Config{in.cfg}
	lo, hi := in.cfg.Job.Checkpoint, in.cfg.Job.Checkpoint
	for i, m := range in.multi {
		if i == 0 {
			continue
		}
		c := in.cfg
		c.Model = m
		if f.checkpoint == "auto" {
			c.Job.Checkpoint, _ = autoCheckpoint(&c.Job, m.MTBF(job.Nodes), f.ckptCost.Text)
			lo, hi = math.Min(lo, c.Job.Checkpoint), math.Max(hi, c.Job.Checkpoint)
		}
		in.cfgs = append(in.cfgs, c)
	}
	if len(in.multi) > 1 && f.checkpoint == "auto" {
		in.ckptMode = fmt.Sprintf("auto per trace: Daly's optimum for each trace's MTBF (capped at half the deadline slack), %.3f-%.3f h", lo, hi)
	}
	return in, nil
}

// prices sets the job's prices: --offering's (spot.PriceOffering, as
// offers, cost and advise price it), then --spot-price and --od-price over
// them. It returns the offering's interruption band, nil without one.
func (f *spotFlags) prices(in *spotInputs, l *loadedCatalog, changed func(string) bool) (*catalog.BandChoice, error) {
	job := &in.cfg.Job
	var band *catalog.BandChoice
	if f.offering != "" {
		o, err := findOffering(l, f.offering)
		if err != nil {
			return nil, err
		}
		p, err := spot.PriceOffering(l.cat, l.fx, l.currency, o)
		if err != nil {
			return nil, asUsage(err)
		}
		band = &p.Band
		job.ODPrice, job.SpotPrice = p.OnDemand, p.Spot // one instance is one node
		for _, src := range []string{p.ODSource, p.SpotSource} {
			if src != "" {
				in.priceSources = append(in.priceSources, src)
			}
		}
	}
	if changed("spot-price") {
		job.SpotPrice = f.spotPrice
		in.priceSources = append(in.priceSources, "spot from --spot-price")
	}
	if changed("spot-price") && changed("od-price") && f.spotPrice > f.odPrice {
		return nil, usagef("--spot-price %g is above --od-price %g: spot never costs more than on-demand (AWS and Azure cap it there; the others sell it at a discount); check the two prices", f.spotPrice, f.odPrice)
	}
	if changed("od-price") {
		job.ODPrice = f.odPrice
		in.priceSources = append(in.priceSources, "on-demand from --od-price")
	}
	return band, nil
}

// availability sets the model of when spot is there: traces (replayed or
// fitted, one or several zones), --hazard, --mtbf, or a monthly band
// (--band, else the offering's).
func (f *spotFlags) availability(in *spotInputs, l *loadedCatalog, band *catalog.BandChoice, changed func(string) bool) error {
	n := 0
	for _, set := range []bool{changed("band"), changed("hazard"), changed("mtbf"), len(f.traces) > 0} {
		if set {
			n++
		}
	}
	if n > 1 {
		return usagef("give one availability model: --band, --hazard, --mtbf or --trace")
	}
	switch {
	case changed("regions") && len(f.traces) == 0:
		return usagef("--regions %s needs the traces of two or more zones in --trace, one file per zone (e.g. --trace us-east-1a_v100_1.json,us-east-1c_v100_1.json)", f.regions)
	case !changed("regions") && (changed("move-gb") || changed("move-price")):
		return usagef("--move-gb and --move-price need --regions: moves happen only between several zones")
	}
	down := *f.down.P
	switch {
	case len(f.traces) > 0:
		return f.replayTraces(in, l, changed)
	case f.offsets != "":
		return usagef("--offsets needs --trace: start times are times into a trace")
	case changed("hazard"):
		in.hazard = f.hazard
		in.cfg.Model = spot.Hazard{PerHour: f.hazard, Down: down, Origin: "--hazard"}
	case changed("mtbf"):
		m := *f.mtbf.P
		in.hazard = 1 / m
		in.cfg.Model = spot.Hazard{PerHour: 1 / m, Down: down, Origin: "--mtbf " + f.mtbf.Text}
	default:
		label, origin := f.band, "--band "+f.band
		if label == "" && band != nil {
			label, origin = band.Label, band.Origin
		}
		if label == "" {
			return usagef("give an availability model: --band 10-15%%, --hazard, --mtbf or --trace (or an --offering with Spot Advisor data)")
		}
		model, note, err := spot.BandModel(label, origin, down)
		if err != nil {
			return usagef("--band: %v", err)
		}
		in.hazard, in.bandNote, in.cfg.Model = model.PerHour, note, model
	}
	return nil
}

// replayTraces sets the model from --trace: each file replayed (from start
// offsets) or a two-state model fitted to it; several pooled as
// independent runs, or with --regions the zones of one job.
func (f *spotFlags) replayTraces(in *spotInputs, l *loadedCatalog, changed func(string) bool) error {
	job := &in.cfg.Job
	paths, err := expandTraces(f.traces)
	if err != nil {
		return err
	}
	var models []spot.Model
	var names []string
	for _, path := range paths {
		tr, err := spot.LoadTrace(path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return usagef("--trace %s: no such file", path)
			}
			return asUsage(err)
		}
		names = append(names, path)
		if m := tr.MaxUp(); job.Nodes > m {
			return usagef("--nodes %d: the trace %s never has more than %d instance(s) up at once: a gang of %d could never run on spot; want --nodes at most %d", job.Nodes, path, m, job.Nodes, m)
		}
		if h := max(job.Deadline, job.Work); h > tr.Hours() {
			in.traceNotes = append(in.traceNotes, fmt.Sprintf("%s covers %.1f h, less than the job's %.1f h: a run wraps around to the trace's start and meets its own history again", path, tr.Hours(), h))
		}
		switch f.traceMode {
		case "replay":
			models = append(models, spot.NewReplay(tr))
			if tr.Prices != nil && !changed("spot-price") && len(paths) == 1 {
				var sum float64
				for _, p := range tr.Prices {
					sum += p
				}
				job.SpotPrice = sum / float64(len(tr.Prices))
				in.priceSources = append(in.priceSources, "spot from the trace's own prices (USD), tick by tick")
			}
		case "fit":
			up, dn := tr.RunsFor(job.Nodes).Fit()
			if up == 0 {
				return usagef("--trace %s: spot is never available for %d node(s); nothing to fit", path, job.Nodes)
			}
			models = append(models, spot.TwoState{MeanUp: up, MeanDown: dn, Origin: "fitted to " + path})
		default:
			return usagef("--trace-mode %q: want replay or fit", f.traceMode)
		}
	}
	in.cfg.Model = models[0]
	in.traceNames = names
	if f.offsets != "" {
		if f.traceMode != "replay" {
			return usagef("--offsets needs --trace-mode replay: a fitted model has no start times")
		}
		if f.runsSet {
			return usagef("--offsets and --runs: give one; with --offsets each start time is one run")
		}
		offs, where, err := parseOffsets(f.offsets)
		if err != nil {
			return err
		}
		for i, m := range models {
			if err := checkOffsets(offs, where, names[i], m.(*spot.Replay).Trace.Hours()); err != nil {
				return err
			}
		}
		in.offsets = offs
		in.cfg.Offsets = offs
		in.cfg.Runs = len(offs)
	}
	if len(models) > 1 {
		in.multi = models
		in.multiNote = fmt.Sprintf("%d traces (%s ... %s), each from its own start offsets, pooled", len(models), names[0], names[len(names)-1])
	}
	if changed("regions") {
		if err := f.prepareZones(in, l, paths, models, changed); err != nil {
			return err
		}
	}
	if !f.runsSet && in.offsets == nil {
		in.cfg.Runs = spot.DefaultOffsetRuns // the paper's 300 start offsets per trace
	}
	return nil
}

// checkpointing sets the checkpoint interval from --checkpoint: Daly's
// optimum for the job's MTBF (auto), none, continuous or a duration.
func (f *spotFlags) checkpointing(in *spotInputs) error {
	job := &in.cfg.Job
	var err error
	mtbf := in.cfg.Model.MTBF(job.Nodes)
	if in.zones != nil {
		mtbf = zonesMTBF(in.cfg.Zones, job.Nodes)
	}
	switch f.checkpoint {
	case "auto":
		job.Checkpoint, in.ckptMode = autoCheckpoint(job, mtbf, f.ckptCost.Text)
		if in.zones != nil {
			in.ckptMode = strings.Replace(in.ckptMode, "job MTBF", "job MTBF pooled across the zones", 1)
		}
	case "none":
		job.Checkpoint, in.ckptMode = math.Inf(1), "none: an interruption loses all work"
	case "continuous":
		job.Checkpoint, in.ckptMode = 0, "continuous: an interruption loses no work"
	default:
		if job.Checkpoint, err = cost.ParseNonNegativeDuration(f.checkpoint); err != nil {
			return usagef("--checkpoint %q: want a duration, auto, none or continuous", f.checkpoint)
		}
		if job.Checkpoint == 0 {
			// Zero is continuous checkpointing, which is free: consistent only
			// with a free checkpoint (an interval at or below a checkpoint's
			// cost is refused, and 1m was while 0s passed).
			if *f.ckptCost.P > 0 {
				return usagef("--checkpoint %s: an interval of zero writes checkpoints continuously, for free, but each costs --checkpoint-cost %s; write --checkpoint continuous for that model, or an interval above the cost", f.checkpoint, f.ckptCost.Text)
			}
			in.ckptMode = "continuous: an interruption loses no work"
			break
		}
		in.ckptMode = fmt.Sprintf("every %.3f h of work", job.Checkpoint)
	}
	if c := job.Checkpoint; c > 0 && !math.IsInf(c, 1) && c <= job.CheckpointCost {
		return usagef("--checkpoint %s (%.4g h) is at or below --checkpoint-cost %s (%.4g h): the job would spend at least half its time writing checkpoints; want an interval above the cost, or --checkpoint auto for Daly's optimum",
			f.checkpoint, c, f.ckptCost.Text, job.CheckpointCost)
	}
	return nil
}

// budgetHint words a simulation over its event budget as what to change.
func (f *spotFlags) budgetHint(err error, in *spotInputs) error {
	var be *spot.BudgetError
	if !errors.As(err, &be) {
		return asUsage(err)
	}
	raise := fmt.Sprintf("raise --max-events (now %d) and wait longer", f.maxEvents)
	if events, seconds, ok := be.Need(); ok && events <= 1e10 {
		p := math.Pow(10, math.Floor(math.Log10(events))-1) // two significant digits, rounded up
		raise = fmt.Sprintf("raise --max-events (now %d) to %d and wait %s", f.maxEvents, int64(math.Ceil(events/p)*p), spot.About(seconds))
	} else if ok {
		raise = fmt.Sprintf("shorten the job: it needs about %.2g events (%s), beyond the most --max-events allows, 10000000000", events, spot.About(seconds))
	}
	return usagef("%v; to fit, lower --runs (now %d per policy and trace) or --policy, lengthen --checkpoint (now %s), replay a trace with coarser ticks, or %s",
		err, in.cfg.Runs, in.ckptMode, raise)
}

// autoCheckpoint is spot.AutoCheckpoint's interval with the words that say
// how it came, for the job's MTBF.
func autoCheckpoint(job *spot.Job, mtbf float64, costFlag string) (float64, string) {
	ch := spot.AutoCheckpoint(job, mtbf)
	if math.IsInf(ch.Interval, 1) {
		return ch.Interval, "none (no interruptions expected)"
	}
	note := fmt.Sprintf("auto: Daly's optimum for checkpoint cost %s and job MTBF %.2f h = %.3f h (Young: %.3f h)", costFlag, mtbf, ch.Daly, spot.Young(ch.Cost, mtbf))
	if ch.CappedBySlack {
		note += fmt.Sprintf(", capped at half the deadline slack: %.3f h", ch.Interval)
	}
	if ch.RaisedToCost {
		note += fmt.Sprintf(", raised to twice the checkpoint cost: %.3f h", ch.Interval)
	}
	return ch.Interval, note
}

// expandTraces turns files and folders into the list of trace files, sorted.
func expandTraces(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		fi, err := os.Stat(a)
		if err != nil {
			return nil, usagef("--trace %s: no such file or folder", a)
		}
		if !fi.IsDir() {
			out = append(out, a)
			continue
		}
		var found []string
		filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") {
				found = append(found, p)
			}
			return nil
		})
		if len(found) == 0 {
			return nil, usagef("--trace %s: no .json traces in the folder", a)
		}
		sort.Strings(found)
		out = append(out, found...)
	}
	return out, nil
}

// findOffering resolves --offering to one offering: in its region, or in
// the cheapest region when none is given. Its spot price is the catalog's
// quote for that region (SpotQuoteFor), as everywhere else.
func findOffering(l *loadedCatalog, spec string) (*catalog.Offering, error) {
	o, err := l.cat.FindOffering(spec, l.fx, l.currency)
	if err != nil {
		return nil, usagef("--offering %v", err)
	}
	return o, nil
}

// maxOffsets bounds --offsets: one run per start time, per trace and policy.
const maxOffsets = 100_000

// parseOffsets reads --offsets: start times into each trace as a
// comma-separated list ("0h,12.5h,3d") or, with a leading @, a file holding
// one start time per line (blank lines and lines starting with # are
// skipped). Errors name the entry or the file's line.
func parseOffsets(spec string) ([]float64, []string, error) {
	var out []float64
	var where []string
	add := func(loc, s string) error {
		h, err := parseHoursOrZero("offsets", s)
		if err != nil {
			return usagef("--offsets %s: %q is not a start time; want a duration such as 0h, 12.5h or 3d", loc, s)
		}
		if len(out) == maxOffsets {
			return usagef("--offsets %s: more than %d start times; want at most %d", loc, maxOffsets, maxOffsets)
		}
		out = append(out, h)
		where = append(where, loc)
		return nil
	}
	if path, ok := strings.CutPrefix(spec, "@"); ok {
		f, err := os.Open(path)
		if err != nil {
			return nil, nil, usagef("--offsets @%s: %v", path, err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if err := add(fmt.Sprintf("@%s line %d", path, n), line); err != nil {
				return nil, nil, err
			}
		}
		if err := sc.Err(); err != nil {
			return nil, nil, usagef("--offsets @%s: %v", path, err)
		}
		if len(out) == 0 {
			return nil, nil, usagef("--offsets @%s: no start times in the file; want one per line, e.g. 12.5h", path)
		}
		return out, where, nil
	}
	for i, s := range strings.Split(spec, ",") {
		if err := add(fmt.Sprintf("entry %d", i+1), strings.TrimSpace(s)); err != nil {
			return nil, nil, err
		}
	}
	return out, where, nil
}

// checkOffsets tells which start time lies beyond the end of a trace.
func checkOffsets(offsets []float64, where []string, trace string, hours float64) error {
	for i, o := range offsets {
		if !(o < hours) || math.IsInf(o, 0) {
			return usagef("--offsets %s: %.4g h is beyond the end of %s (%.4g h); want a start time from 0 to below the trace's length", where[i], o, trace, hours)
		}
	}
	return nil
}
