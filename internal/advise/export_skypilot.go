package advise

import (
	"fmt"
	"io"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// SkyPilotOptions say what the export needs to know beyond the plans.
type SkyPilotOptions struct {
	// Scenario is the scenario's name; inference-online plans become
	// `sky serve` services.
	Scenario string
	// RegionPinned: the user asked for a region (--region), so a managed
	// job recovers in that region only; otherwise recovery may move regions.
	RegionPinned bool
}

// servingScenario is the scenario whose plans are services, not clusters.
const servingScenario = "inference-online"

// servicePort is the port a service's replicas listen on (a placeholder the
// user's serving command must match).
const servicePort = 8080

// maxSkippedListed bounds the skipped plans the header lists one by one.
const maxSkippedListed = 10

// skyPilotClouds lists the providers of the catalog SkyPilot can launch on.
func skyPilotClouds(c *catalog.Catalog) []string {
	var out []string
	for _, name := range c.ProviderNames() {
		if p := c.Provider(name); p != nil && p.SkyPilotCloud != "" {
			out = append(out, name)
		}
	}
	return out
}

// skyPilotBlocker says why SkyPilot cannot launch the plan as gpuscout
// priced it, or "" when it can. The checks are SkyPilot's own: its cloud
// list, its clouds' unsupported features (providers.yaml skypilot:), the
// regions of its catalog, and the instance types and accelerators its
// catalog has on the cloud.
func skyPilotBlocker(c *catalog.Catalog, p *Plan, opt SkyPilotOptions) string {
	o := p.Offering
	prov := c.Provider(o.Provider)
	if prov == nil || prov.SkyPilotCloud == "" {
		return fmt.Sprintf("SkyPilot cannot launch on %s (it launches on %s)", o.Provider, strings.Join(skyPilotClouds(c), ", "))
	}
	lim := catalog.SkyPilotLimits{}
	if prov.SkyPilot != nil {
		lim = *prov.SkyPilot
	}
	serving := opt.Scenario == servingScenario
	switch {
	case o.Region == "":
		return "the catalog row has no region, and SkyPilot places an instance type by its region"
	case o.SkyPilotRegion == "" && o.China && lim.NoChinaRegions:
		return fmt.Sprintf("SkyPilot's %s catalog has no mainland-China region such as %s", prov.SkyPilotCloud, o.Region)
	case p.Model == cost.ModelSpot && lim.NoSpot:
		return fmt.Sprintf("SkyPilot has no spot instances on %s", prov.SkyPilotCloud)
	case serving && lim.NoOpenPorts:
		return fmt.Sprintf("sky serve replicas need open ports, which SkyPilot does not support on %s", prov.SkyPilotCloud)
	case !serving && p.Instances > 1 && lim.NoMultiNode:
		return fmt.Sprintf("SkyPilot cannot build multi-node clusters on %s (the plan needs %d nodes)", prov.SkyPilotCloud, p.Instances)
	case !serving && p.Instances > 1 && o.NetworkKind == catalog.NetTCPXO && prov.SkyPilotCloud == "gcp":
		// Launched without the fabric it was priced on, the plan is another plan.
		return fmt.Sprintf("the plan's %d nodes are priced on %s's GPUDirect-TCPXO, which SkyPilot sets up on GKE only, not on GCP VMs: launched as a VM task they would talk over plain networking and the plan's hours would not hold", p.Instances, o.InstanceType)
	}
	// The instance type and its accelerator as SkyPilot's own catalog has
	// them: a task SkyPilot would refuse, or launch without the GPUs
	// gpuscout priced, is not exported (export_skypilot_facts.go).
	_, why := skyPilotCatalogCheck(prov.SkyPilotCloud, o)
	return why
}

// WriteSkyPilot prints a SkyPilot task YAML for the best of plans (in rank
// order) that SkyPilot can launch as priced, and lists in its header the
// better plans it skipped and why. On-demand and commitment plans are
// clusters (sky launch), spot plans managed jobs (sky jobs launch), and
// inference-online plans services (sky serve up). It is an error when
// SkyPilot can launch none of them.
func WriteSkyPilot(w io.Writer, c *catalog.Catalog, plans []Plan, opt SkyPilotOptions) error {
	var skipped []string
	askedSkipped := false // a plan on the shape the user asked for is among them
	for i := range plans {
		p := &plans[i]
		why := skyPilotBlocker(c, p, opt)
		if why == "" {
			return writeSkyPilotTask(w, c, p, opt, skipped, askedSkipped && !p.AsAsked)
		}
		askedSkipped = askedSkipped || p.AsAsked
		skipped = append(skipped, fmt.Sprintf("#%d %s %s (%s): %s", p.Rank, p.Offering.Provider, p.Offering.InstanceType, planName(p), why))
	}
	if len(skipped) == 0 {
		return fmt.Errorf("--export skypilot: no plan to export")
	}
	shown := skipped
	more := ""
	if len(shown) > 3 {
		shown, more = shown[:3], fmt.Sprintf("; and %d more", len(skipped)-3)
	}
	return fmt.Errorf("--export skypilot: SkyPilot can launch none of the %d plans: %s%s", len(skipped), strings.Join(shown, "; "), more)
}

// skyPilotKind is how SkyPilot runs a plan.
type skyPilotKind int

const (
	skyCluster skyPilotKind = iota // sky launch -c NAME task.yaml
	skyJob                         // sky jobs launch task.yaml
	skyService                     // sky serve up task.yaml
)

// writeSkyPilotTask writes the task of plan p; skipped lists the better
// plans SkyPilot cannot launch, and notAsked says that plans on the shape
// the user asked for are among them while p is on another.
func writeSkyPilotTask(w io.Writer, c *catalog.Catalog, p *Plan, opt SkyPilotOptions, skipped []string, notAsked bool) error {
	o := p.Offering
	prov := c.Provider(o.Provider)
	kind := skyCluster
	switch {
	case opt.Scenario == servingScenario:
		kind = skyService
	case p.Model == cost.ModelSpot:
		kind = skyJob
	}
	name := "gpuscout-" + opt.Scenario
	region := o.Region
	if o.SkyPilotRegion != "" {
		region = o.SkyPilotRegion // SkyPilot's own text (Vast: ", CA, NA")
	}
	// The instance type pins the machine gpuscout priced: SkyPilot launches
	// that type or nothing, and never another with a similar accelerator.
	res := map[string]any{"cloud": prov.SkyPilotCloud, "instance_type": o.InstanceType}
	skyAccel, _ := skyPilotCatalogCheck(prov.SkyPilotCloud, o)
	var notes []string
	if notAsked {
		// Never another accelerator in silence: say that this is not the
		// shape asked for, and why (the skipped plans above).
		notes = append(notes, fmt.Sprintf("not the shape you asked for: SkyPilot cannot launch the plans on it (skipped above, with why); this task is gpuscout's best plan SkyPilot can launch: %d × %s, %s×%s each",
			p.Instances, o.InstanceType, fmtCount(o.GPUCount), o.GPU.Name))
	}
	if o.SkyPilotAccelerator != "" {
		// The name and count of SkyPilot's own catalog row for this
		// instance type: SkyPilot checks that accelerators match what the
		// instance type has, and these do by construction.
		res["accelerators"] = fmt.Sprintf("%s:%s", o.SkyPilotAccelerator, fmtCount(o.GPUCount))
	} else {
		// gpuscout's GPU names are not SkyPilot's (GCP's a3-megagpu-8g is
		// H100-MEGA there): a name that is not SkyPilot's own fails the
		// launch or, matching one of its names in part, is silently taken
		// for that one; an omitted one is read from the instance type.
		there := ""
		if skyAccel != "" {
			there = skyAccel + " there, "
		}
		notes = append(notes, fmt.Sprintf("accelerators omitted: SkyPilot reads them from instance type %s in its %s catalog (%s%s×%s in gpuscout's terms)", o.InstanceType, prov.SkyPilotCloud, there, fmtCount(o.GPUCount), o.GPU.Name))
	}
	if kind != skyService {
		// Replicas of a service do not talk to each other; the nodes of a
		// cluster or a managed job do.
		best, note := skyPilotNetworkTier(prov.SkyPilotCloud, o, skyAccel, p.Instances)
		if best {
			res["network_tier"] = "best"
		}
		if note != "" {
			notes = append(notes, note)
		}
	}
	var command string
	switch kind {
	case skyJob:
		command = "sky jobs launch task.yaml"
		strategy := "EAGER_NEXT_REGION"
		if opt.RegionPinned {
			res["region"] = region
			strategy = "FAILOVER"
			notes = append(notes, fmt.Sprintf("region pinned to %s as asked (--region): preemptions are recovered in that region only", region))
		} else {
			notes = append(notes, fmt.Sprintf("gpuscout priced the spot capacity in %s; no region is set so that recovery may move to any region of %s with %s", region, prov.SkyPilotCloud, o.InstanceType))
		}
		if p.Deadline > 0 {
			// Spot first (the optimizer picks the cheaper candidate),
			// on-demand when spot cannot be had.
			res["any_of"] = []map[string]any{{"use_spot": true}, {"use_spot": false}}
			notes = append(notes,
				fmt.Sprintf("deadline %s: gpuscout priced this plan as %s (spot, switching to on-demand when the job falls behind the progress line the deadline sets).", cost.FormatHours(p.Deadline), p.Payment),
				"SkyPilot cannot express a deadline: any_of falls back to on-demand only when spot cannot be launched, and never because the job runs late.",
				"Watch progress yourself and relaunch with use_spot: false if the job falls behind.")
		} else {
			res["use_spot"] = true
			notes = append(notes, "spot-only with checkpoint/restart: the managed job recovers preemptions; checkpoint to a bucket")
		}
		res["job_recovery"] = map[string]any{"strategy": strategy, "max_restarts_on_errors": 0}
	case skyService:
		command = "sky serve up task.yaml"
		res["region"] = region
		res["use_spot"] = false
		res["ports"] = servicePort
	default:
		command = fmt.Sprintf("sky launch -c %s task.yaml", name)
		res["region"] = region
		res["use_spot"] = false
	}
	if p.Term != "" {
		notes = append(notes, fmt.Sprintf("SkyPilot cannot buy the %s %s: buy it from %s first; SkyPilot then launches on-demand instances that the commitment covers", p.Model, p.Term, o.Provider))
	}
	if p.Mix != "" {
		notes = append(notes, "bursty plan ("+p.Mix+"): this task is one base instance type; launch the burst as further clusters or replicas")
	}
	task := map[string]any{"name": name, "resources": res}
	if kind == skyService {
		task["service"] = map[string]any{
			"readiness_probe": map[string]any{"path": "/health"},
			"replicas":        p.Instances,
		}
		task["run"] = fmt.Sprintf("echo 'replace with your serving command, listening on port %d'\n", servicePort)
		notes = append(notes, fmt.Sprintf("replicas: %d, one instance each, as the plan's instances; readiness_probe path /health is a PLACEHOLDER: set your server's health endpoint", p.Instances))
	} else {
		task["num_nodes"] = p.Instances
		task["run"] = "echo 'replace with your training or batch command'\n"
	}
	var doc yaml.Node
	if err := doc.Encode(task); err != nil {
		return err
	}
	if kind == skyService {
		markPlaceholder(&doc, "service", "readiness_probe", "path")
	}
	b, err := yaml.Marshal(&doc)
	if err != nil {
		return err
	}
	var head strings.Builder
	fmt.Fprintf(&head, "# SkyPilot task for gpuscout's plan #%d: %s %s, %s\n# expected %s total\n",
		p.Rank, o.Provider, o.InstanceType, exportPlanName(p), money.Format(p.Total.Value, p.Currency))
	fmt.Fprintf(&head, "# run it with: %s\n", command)
	if len(skipped) > 0 {
		head.WriteString("# better plans skipped, as SkyPilot cannot launch them as priced:\n")
		for i, s := range skipped {
			if i == maxSkippedListed {
				fmt.Fprintf(&head, "#   ... and %d more\n", len(skipped)-i)
				break
			}
			head.WriteString("#   " + s + "\n")
		}
	}
	for _, n := range notes {
		head.WriteString("# " + n + "\n")
	}
	_, err = io.WriteString(w, head.String()+string(b))
	return err
}

// markPlaceholder puts a "PLACEHOLDER" line comment on the value at path in
// a document node made by Encode.
func markPlaceholder(n *yaml.Node, path ...string) {
	for _, key := range path {
		next := (*yaml.Node)(nil)
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				next = n.Content[i+1]
				break
			}
		}
		if next == nil {
			return
		}
		n = next
	}
	n.LineComment = "PLACEHOLDER: your server's health endpoint"
}

// exportPlanName is the plan's model, term and payment or spot policy, each
// once ("spot", not "spot spot").
func exportPlanName(p *Plan) string {
	name := planName(p)
	if p.Payment != "" && p.Payment != p.Model {
		name += " " + p.Payment
	}
	return name
}
