package advise

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cost"
	"github.com/gpuscout/gpuscout/internal/money"
)

// SkyPilot's task YAML keys, from sky/utils/schemas.py of
// skypilot-org/skypilot@00052dfe (get_task_schema, get_resources_schema,
// get_service_schema; every level has additionalProperties: false). The
// exports may use only these.
var (
	skyTaskKeys = []string{"name", "workdir", "event_callback", "num_nodes", "resources", "file_mounts", "service", "pool",
		"setup", "run", "envs", "secrets", "managed_secrets", "inputs", "outputs", "file_mounts_mapping", "config",
		"volumes", "volume_mounts", "api_server_access", "_metadata"}
	skyResourceKeys = []string{"cloud", "region", "zone", "infra", "cpus", "memory", "accelerators", "instance_type",
		"use_spot", "job_recovery", "volumes", "disk_size", "ephemeral_storage", "disk_tier", "network_tier", "local_disk",
		"max_hourly_cost", "ports", "labels", "accelerator_args", "_no_missing_accel_warnings", "image_id", "autostop",
		"priority", "priority_class", "any_of", "ordered"}
	skyJobRecoveryKeys = []string{"strategy", "max_restarts_on_errors", "recover_on_exit_codes"}
	skyServiceKeys     = []string{"readiness_probe", "load_balancer", "pool", "replica_policy", "ports", "replicas",
		"workers", "load_balancing_policy", "tls"}
	skyProbeKeys = []string{"path", "initial_delay_seconds", "timeout_seconds", "endpoint_probe_interval_seconds",
		"consecutive_failure_threshold_timeout", "post_data", "headers"}
)

// SkyPilot's cloud feature flags (_CLOUD_UNSUPPORTED_FEATURES in
// sky/clouds/*.py, see sources.yaml skypilot-clouds), written out here
// independently of providers.yaml so that the test checks that file too.
var (
	skyNoMultiNode = []string{"vast", "seeweb"}                 // MULTI_NODE
	skyNoOpenPorts = []string{"vast"}                           // OPEN_PORTS (sky serve needs them)
	skyNoSpot      = []string{"lambda", "fluidstack", "seeweb"} // SPOT_INSTANCE
	// GCP instance types whose accelerators SkyPilot infers
	// (_ACC_INSTANCE_TYPE_DICTS in sky/catalog/gcp_catalog.py @00526108).
	skyGCPAccelTypes = map[string]string{"a2-highgpu-8g": "A100", "a2-ultragpu-8g": "A100-80GB",
		"a3-highgpu-8g": "H100", "a3-megagpu-8g": "H100-MEGA", "g2-standard-4": "L4",
		"a3-ultragpu-8g": "H200", "a4-highgpu-8g": "B200"}
	// Where SkyPilot supports `resources: network_tier: best` for a
	// cluster of several nodes (CUSTOM_NETWORK_TIER in sky/clouds/*.py
	// @00526108): every AWS type; GCP VMs whose machine type is in
	// GPU_DIRECT_TCPX_INSTANCE_TYPES (sky/provision/gcp/constants.py; any
	// other raises "Enable GPU Direct requires machineType to be one of");
	// Nebius with H100:8 or H200:8 (sky/clouds/nebius.py). Every other
	// cloud lists CUSTOM_NETWORK_TIER as unsupported.
	skyNetworkTierBest = func(cloud, instanceType, accelerators string) bool {
		switch cloud {
		case "aws":
			return true
		case "gcp":
			return instanceType == "a3-highgpu-8g" || instanceType == "a3-edgegpu-8g"
		case "nebius":
			return accelerators == "H100:8" || accelerators == "H200:8"
		}
		return false
	}
)

// skyCSVs is what SkyPilot's catalog files under shared/data say: per
// cloud and instance type, the accelerator names and regions of its rows,
// and per accelerator name the clouds that list it (common/accelerators.csv).
type skyCSVs struct {
	accels  map[string]map[string]bool            // cloud -> instance type -> AcceleratorName
	regions map[string]map[string]map[string]bool // cloud -> instance type -> Region
	clouds  map[string]map[string]bool            // AcceleratorName -> lower-case cloud
}

func readSkyCSVs(t *testing.T) *skyCSVs {
	t.Helper()
	root := filepath.Join("..", "..", "..", "shared", "data", "skypilot-catalog")
	s := &skyCSVs{accels: map[string]map[string]bool{}, regions: map[string]map[string]map[string]bool{}, clouds: map[string]map[string]bool{}}
	read := func(path string) []map[string]string {
		f, err := os.Open(filepath.Join(root, path))
		if err != nil {
			t.Skipf("SkyPilot catalog not available: %v", err)
		}
		defer f.Close()
		recs, err := csv.NewReader(f).ReadAll()
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		var out []map[string]string
		for _, r := range recs[1:] {
			m := map[string]string{}
			for i, h := range recs[0] {
				m[h] = r[i]
			}
			out = append(out, m)
		}
		return out
	}
	for _, r := range read("common/accelerators.csv") {
		s.clouds[r["AcceleratorName"]] = map[string]bool{}
		for _, c := range strings.Split(strings.Trim(r["Clouds"], "[]"), ",") {
			s.clouds[r["AcceleratorName"]][strings.ToLower(strings.Trim(strings.TrimSpace(c), "'"))] = true
		}
	}
	for cloud, path := range map[string]string{"aws": "aws/vms.p4d-p5-excerpt.csv", "lambda": "lambda/vms.csv", "nebius": "nebius/vms.csv",
		"vast": "vast/vms.csv", "seeweb": "seeweb/vms.csv", "fluidstack": "fluidstack/vms.csv"} {
		s.accels[cloud], s.regions[cloud] = map[string]bool{}, map[string]map[string]bool{}
		for _, r := range read(path) {
			it := r["InstanceType"]
			s.accels[cloud][it+"/"+r["AcceleratorName"]] = true
			if s.regions[cloud][it] == nil {
				s.regions[cloud][it] = map[string]bool{}
			}
			s.regions[cloud][it][r["Region"]] = true
		}
	}
	return s
}

// launchable is the oracle of the catalog check: whether SkyPilot's own
// catalog of the cloud has the offering's instance type with its
// accelerator. Rows read from SkyPilot's catalog carry its name; AWS and
// Azure rows name a GPU the CSV of SkyPilot's accelerators must list for
// the cloud (after SkyPilot's fetchers' naming, skyAccelName), Azure's
// deprecated NVv2 sizes aside; GCP types must be ones SkyPilot infers
// accelerators for.
func (s *skyCSVs) launchable(cloud string, o *catalog.Offering) bool {
	switch {
	case o.SkyPilotAccelerator != "":
		return true
	case cloud == "gcp":
		_, ok := skyGCPAccelTypes[o.InstanceType]
		return ok
	case cloud == "aws" || cloud == "azure":
		name := skyAccelName[cloud][o.GPU.Name]
		return name != "" && s.clouds[name][cloud] && !regexp.MustCompile(`^Standard_NV[0-9]+s_v2$`).MatchString(o.InstanceType)
	}
	return false
}

// skyPlanSample makes plans from the catalog: for every provider SkyPilot
// launches on, offerings spread over its rows (and every row without a
// region or in mainland China), each as an on-demand cluster of 1 and 2
// nodes, a spot managed job of 2 nodes where spot is priced, and a service
// of 3 replicas, for the scenarios that make each kind.
func skyPlanSample(c *catalog.Catalog) (plans []Plan, opts []SkyPilotOptions) {
	byProv := map[string][]*catalog.Offering{}
	for i := range c.Offerings {
		o := &c.Offerings[i]
		if p := c.Provider(o.Provider); p != nil && p.SkyPilotCloud != "" {
			byProv[o.Provider] = append(byProv[o.Provider], o)
		}
	}
	add := func(o *catalog.Offering, model string, n int, scenario string, pinned bool) {
		plans = append(plans, Plan{Rank: len(plans) + 1, Offering: o, Instances: n, Model: model, Currency: money.USD})
		opts = append(opts, SkyPilotOptions{Scenario: scenario, RegionPinned: pinned})
	}
	for _, name := range c.ProviderNames() {
		offs := byProv[name]
		step := max(1, len(offs)/6)
		for i, o := range offs {
			if i%step != 0 && o.Region != "" && !o.China {
				continue
			}
			add(o, cost.ModelOnDemand, 1, "cv-training", false)
			add(o, cost.ModelOnDemand, 2, "llm-pretraining", false)
			if o.Spot.Known {
				add(o, cost.ModelSpot, 2, "llm-finetuning", false)
				add(o, cost.ModelSpot, 1, "inference-batch", true)
			}
			add(o, cost.ModelOnDemand, 3, "inference-online", false)
		}
	}
	return plans, opts
}

// Issue 9 part 8: every export of a sample of plans across providers and
// scenarios parses, uses only SkyPilot's keys, names accelerators SkyPilot's
// catalog has for that instance type (or none, when SkyPilot reads them from
// the instance type), never asks for a cluster where SkyPilot cannot build
// one, and has a region SkyPilot's catalog lists; the plans that cannot be
// exported are exactly the ones SkyPilot's rules exclude.
func TestSkyPilotExportsLaunch(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	sky := readSkyCSVs(t)
	plans, opts := skyPlanSample(c)
	exported, blocked := 0, 0
	cloudsSeen, kindsSeen := map[string]bool{}, map[string]bool{}
	for i := range plans {
		p, opt := &plans[i], opts[i]
		o := p.Offering
		cloud := c.Provider(o.Provider).SkyPilotCloud
		serving := opt.Scenario == "inference-online"
		// The oracle: SkyPilot's own rules, from the lists above.
		var want string
		switch {
		case o.Region == "":
			want = "no region"
		case o.China && cloud == "aws":
			want = "mainland-China"
		case p.Model == cost.ModelSpot && slices.Contains(skyNoSpot, cloud):
			want = "no spot"
		case serving && slices.Contains(skyNoOpenPorts, cloud):
			want = "open ports"
		case !serving && p.Instances > 1 && slices.Contains(skyNoMultiNode, cloud):
			want = "multi-node"
		case !serving && p.Instances > 1 && cloud == "gcp" && o.NetworkKind == catalog.NetTCPXO:
			want = "GPUDirect-TCPXO, which SkyPilot sets up on GKE only"
		case !sky.launchable(cloud, o):
			want = cloud + " catalog"
		}
		what := fmt.Sprintf("%s %s %s ×%d %s", o.Provider, o.InstanceType, p.Model, p.Instances, opt.Scenario)
		got := skyPilotBlocker(c, p, opt)
		if (got == "") != (want == "") || !strings.Contains(got, want) {
			t.Errorf("%s: blocker %q, want one saying %q", what, got, want)
			continue
		}
		if got != "" {
			blocked++
			continue
		}
		var buf bytes.Buffer
		if err := WriteSkyPilot(&buf, c, []Plan{*p}, opt); err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		exported++
		cloudsSeen[cloud] = true
		kindsSeen[checkSkyTask(t, c, sky, p, opt, buf.String())] = true
	}
	t.Logf("%d plans: %d exported on %d clouds, %d blocked", len(plans), exported, len(cloudsSeen), blocked)
	if exported < 40 || len(cloudsSeen) < 7 || len(kindsSeen) != 3 || blocked == 0 {
		t.Errorf("sample: %d exported (want ≥ 40) on clouds %v (want ≥ 7), kinds %v, %d blocked", exported, cloudsSeen, kindsSeen, blocked)
	}
}

// checkSkyTask checks one export against SkyPilot's schema keys, catalog
// names and regions, and cloud features; it returns the kind of task
// (launch, jobs or serve).
func checkSkyTask(t *testing.T, c *catalog.Catalog, sky *skyCSVs, p *Plan, opt SkyPilotOptions, out string) (kind string) {
	t.Helper()
	o := p.Offering
	cloud := c.Provider(o.Provider).SkyPilotCloud
	serving := opt.Scenario == "inference-online"
	what := fmt.Sprintf("%s %s %s ×%d %s", o.Provider, o.InstanceType, p.Model, p.Instances, opt.Scenario)
	var task map[string]any
	if err := yaml.Unmarshal([]byte(out), &task); err != nil {
		t.Errorf("%s: not YAML: %v\n%s", what, err, out)
		return ""
	}
	res, _ := task["resources"].(map[string]any)
	checkKeys(t, what, "task", task, skyTaskKeys)
	checkKeys(t, what, "resources", res, skyResourceKeys)
	if jr, ok := res["job_recovery"].(map[string]any); ok {
		checkKeys(t, what, "job_recovery", jr, skyJobRecoveryKeys)
	}
	if anyOf, ok := res["any_of"].([]any); ok {
		for _, a := range anyOf {
			checkKeys(t, what, "any_of", a.(map[string]any), skyResourceKeys)
		}
	}
	if res["cloud"] != cloud || res["instance_type"] != o.InstanceType {
		t.Errorf("%s: cloud %v instance_type %v, want %s %s", what, res["cloud"], res["instance_type"], cloud, o.InstanceType)
	}
	// Accelerators: SkyPilot's name for this instance type, or none.
	if acc, ok := res["accelerators"].(string); ok {
		name, count, _ := strings.Cut(acc, ":")
		if !sky.clouds[name][cloud] || !sky.accels[cloud][o.InstanceType+"/"+name] || count != fmtCount(o.GPUCount) {
			t.Errorf("%s: accelerators %q: not SkyPilot's name and count for %s on %s", what, acc, o.InstanceType, cloud)
		}
	} else if o.SkyPilotAccelerator != "" {
		t.Errorf("%s: accelerators omitted although the catalog has SkyPilot's name %q", what, o.SkyPilotAccelerator)
	} else if cloud == "gcp" && skyGCPAccelTypes[o.InstanceType] == "" {
		t.Errorf("%s: SkyPilot cannot infer the accelerators of GCP %s", what, o.InstanceType)
	}
	// Region: one SkyPilot's catalog lists, or none for a free-moving managed job.
	region, hasRegion := res["region"].(string)
	switch {
	case !hasRegion && !(p.Model == cost.ModelSpot && !opt.RegionPinned):
		t.Errorf("%s: no region", what)
	case hasRegion && p.Model == cost.ModelSpot && !opt.RegionPinned && !serving:
		t.Errorf("%s: region %s pinned although the user pinned none: recovery cannot move", what, region)
	case hasRegion && sky.regions[cloud] != nil && o.SkyPilotRegion != "" && !sky.regions[cloud][o.InstanceType][region]:
		t.Errorf("%s: region %q is not in SkyPilot's %s catalog for %s", what, region, cloud, o.InstanceType)
	case hasRegion && (strings.HasPrefix(region, "cn-") || region == ""):
		t.Errorf("%s: region %q SkyPilot does not know", what, region)
	}
	// Clusters only where SkyPilot builds them; services are replicas.
	nodes, _ := task["num_nodes"].(int)
	switch {
	case serving:
		svc, _ := task["service"].(map[string]any)
		checkKeys(t, what, "service", svc, skyServiceKeys)
		probe, _ := svc["readiness_probe"].(map[string]any)
		checkKeys(t, what, "readiness_probe", probe, skyProbeKeys)
		if task["num_nodes"] != nil || svc["replicas"] != p.Instances || res["ports"] == nil || !strings.Contains(out, "# run it with: sky serve up task.yaml") || !strings.Contains(out, "PLACEHOLDER") {
			t.Errorf("%s: want a service of %d replicas with ports and a marked probe placeholder:\n%s", what, p.Instances, out)
		}
		kind = "serve"
	case p.Model == cost.ModelSpot:
		jr, _ := res["job_recovery"].(map[string]any)
		want := map[bool]string{false: "EAGER_NEXT_REGION", true: "FAILOVER"}[opt.RegionPinned]
		// Spot only; under a deadline spot first and on-demand as the fallback.
		spotAsked := res["use_spot"] == true
		if anyOf, ok := res["any_of"].([]any); ok && p.Deadline > 0 && res["use_spot"] == nil && len(anyOf) == 2 {
			spotAsked = anyOf[0].(map[string]any)["use_spot"] == true && anyOf[1].(map[string]any)["use_spot"] == false
		}
		if nodes != p.Instances || !spotAsked || jr["strategy"] != want || !strings.Contains(out, "# run it with: sky jobs launch task.yaml") {
			t.Errorf("%s: want a managed spot job of %d nodes with %s recovery:\n%s", what, p.Instances, want, out)
		}
		kind = "jobs"
	default:
		if nodes != p.Instances || res["use_spot"] != false || !strings.Contains(out, "# run it with: sky launch -c gpuscout-"+opt.Scenario+" task.yaml") {
			t.Errorf("%s: want an on-demand cluster of %d nodes:\n%s", what, p.Instances, out)
		}
		kind = "launch"
	}
	if nodes > 1 && slices.Contains(skyNoMultiNode, cloud) {
		t.Errorf("%s: %d nodes on %s, where SkyPilot cannot build clusters", what, nodes, cloud)
	}
	// The best network for several nodes where SkyPilot supports it, and
	// a comment saying why not where it does not; never for one node or
	// for the replicas of a service.
	acc, _ := res["accelerators"].(string)
	wantBest := !serving && p.Instances > 1 && skyNetworkTierBest(cloud, o.InstanceType, acc)
	if got, ok := res["network_tier"]; ok != wantBest || ok && got != "best" {
		t.Errorf("%s: network_tier %v (set %v), want set %v", what, got, ok, wantBest)
	}
	if !serving && p.Instances > 1 && !wantBest && !strings.Contains(out, "\n# no network_tier: ") {
		t.Errorf("%s: %d nodes without network_tier and no comment saying why:\n%s", what, p.Instances, out)
	}
	if anyOf, ok := res["any_of"].([]any); ok {
		for _, a := range anyOf {
			if _, ok := a.(map[string]any)["network_tier"]; ok {
				t.Errorf("%s: network_tier inside any_of: it belongs to the resources all candidates share", what)
			}
		}
	}
	return kind
}

func checkKeys(t *testing.T, what, level string, m map[string]any, allowed []string) {
	t.Helper()
	if m == nil {
		t.Errorf("%s: no %s section", what, level)
		return
	}
	for k := range m {
		if !slices.Contains(allowed, k) {
			t.Errorf("%s: %s key %q is not in SkyPilot's schema", what, level, k)
		}
	}
}

// SkyPilot's names for instance types whose GPU gpuscout names otherwise,
// read from the catalog rows (hand-checked against the SkyPilot CSVs:
// fluidstack/vms.csv H100_NVLINK_80GB::8 is H100-NVLINK×8; Seeweb's RTX A6000
// is RTXA6000; Vast writes A100 for the 80 GB card and ", CA, NA" for a
// region without a state); GCP's a3-megagpu-8g (H100-MEGA in SkyPilot, an
// H100 to gpuscout) is exported without accelerators.
func TestSkyPilotNames(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	find := func(prov, typ, gpu, region string) *catalog.Offering {
		for i := range c.Offerings {
			o := &c.Offerings[i]
			if o.Provider == prov && o.InstanceType == typ && (gpu == "" || o.GPU.Name == gpu) && (region == "" || o.Region == region) {
				return o
			}
		}
		t.Fatalf("no %s %s %s %s in the catalog", prov, typ, gpu, region)
		return nil
	}
	tests := []struct {
		o          *catalog.Offering
		wantAccel  string // "" : accelerators omitted
		wantRegion string
	}{
		{find("fluidstack", "H100_NVLINK_80GB::8", "", ""), "H100-NVLINK:8", "FINLAND"},
		{find("seeweb", "ECS1GPU2", "", "it-fr2"), "RTXA6000:1", "it-fr2"},
		{find("vast", "1x-A100_SXM4-32-65536", "A100-SXM4-80GB", "Czechia, CZ, EU"), "A100:1", "Czechia, CZ, EU"},
		{find("vast", "1x-RTX_5090-32-65536", "", "CA, NA"), "RTX5090:1", ", CA, NA"},
		{find("gcp", "a3-megagpu-8g", "", "us-east4"), "", "us-east4"},
		{find("aws", "p4d.24xlarge", "", "ap-northeast-1"), "A100:8", "ap-northeast-1"},
	}
	for _, tt := range tests {
		p := Plan{Rank: 1, Offering: tt.o, Instances: 1, Model: cost.ModelOnDemand, Currency: money.USD}
		var buf bytes.Buffer
		if err := WriteSkyPilot(&buf, c, []Plan{p}, SkyPilotOptions{Scenario: "cv-training"}); err != nil {
			t.Fatal(err)
		}
		var task struct {
			Resources struct {
				Accelerators string `yaml:"accelerators"`
				Region       string `yaml:"region"`
			} `yaml:"resources"`
		}
		if err := yaml.Unmarshal(buf.Bytes(), &task); err != nil {
			t.Fatal(err)
		}
		if task.Resources.Accelerators != tt.wantAccel || task.Resources.Region != tt.wantRegion {
			t.Errorf("%s %s: accelerators %q region %q, want %q %q\n%s", tt.o.Provider, tt.o.InstanceType,
				task.Resources.Accelerators, task.Resources.Region, tt.wantAccel, tt.wantRegion, buf.String())
		}
		if tt.wantAccel == "" && !strings.Contains(buf.String(), "# accelerators omitted: SkyPilot reads them from instance type "+tt.o.InstanceType) {
			t.Errorf("%s: no comment on the omitted accelerators:\n%s", tt.o.InstanceType, buf.String())
		}
	}
}

// The export takes the best plan SkyPilot can launch and says which better
// ones it skipped and why; with none launchable it is an error that says so.
func TestSkyPilotSkipsBetterPlans(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	pick := func(prov string, region bool) *catalog.Offering {
		for i := range c.Offerings {
			if o := &c.Offerings[i]; o.Provider == prov && (o.Region != "") == region {
				return o
			}
		}
		t.Fatalf("no %s offering (region %v)", prov, region)
		return nil
	}
	plans := []Plan{
		{Rank: 1, Offering: pick("vast", true), Instances: 4, Model: cost.ModelOnDemand, Currency: money.USD},
		{Rank: 2, Offering: pick("seeweb", false), Instances: 1, Model: cost.ModelOnDemand, Currency: money.USD},
		{Rank: 3, Offering: pick("lambda", true), Instances: 2, Model: cost.ModelOnDemand, Currency: money.USD},
	}
	var buf bytes.Buffer
	if err := WriteSkyPilot(&buf, c, plans, SkyPilotOptions{Scenario: "llm-pretraining"}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{
		"# SkyPilot task for gpuscout's plan #3: lambda ",
		"# better plans skipped, as SkyPilot cannot launch them as priced:",
		"#   #1 vast " + plans[0].Offering.InstanceType + " (on-demand): SkyPilot cannot build multi-node clusters on vast (the plan needs 4 nodes)",
		"#   #2 seeweb " + plans[1].Offering.InstanceType + " (on-demand): the catalog row has no region",
		"num_nodes: 2",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	err = WriteSkyPilot(&buf, c, plans[:2], SkyPilotOptions{Scenario: "llm-pretraining"})
	if err == nil || !strings.Contains(err.Error(), "SkyPilot can launch none of the 2 plans") || !strings.Contains(err.Error(), "multi-node") {
		t.Errorf("err = %v, want one naming the 2 plans and why", err)
	}
}

// The plans advise makes for scenarios across providers export as the
// sample's do: the exported plan passes every check, and every plan ranked
// above it is one SkyPilot cannot launch, listed in the header with why.
func TestSkyPilotExportsOfAdvisedPlans(t *testing.T) {
	a := advisor(t, money.USD)
	a.SpotRuns = 200 // the export does not depend on the run count
	sky := readSkyCSVs(t)
	yes := true
	tests := []struct {
		scenario, ref string
		set           func(r *Request)
	}{
		{"cv-training", "A100-SXM4-40GB", func(r *Request) { r.WorkGPUHours, r.RefCount = 4*168, 4 }},
		{"cv-training", "A100-SXM4-40GB", func(r *Request) { r.WorkGPUHours, r.Select.Regions = 4*168, []string{"eu-north1"} }},
		{"llm-pretraining", "A100-SXM4-40GB", func(r *Request) {
			r.WorkGPUHours, r.Deadline, r.Select.Providers = 20000, 30*24, []string{"vast", "seeweb", "lambda"}
		}},
		{"llm-finetuning", "H100-SXM5-80GB", func(r *Request) { r.WorkGPUHours, r.Deadline = 5000, 10*24 }},
		{"inference-online", "L4", func(r *Request) { r.HoursPerMonth, r.HorizonMonths, r.RefCount = 730, 12, 2 }},
		{"inference-batch", "T4", func(r *Request) { r.WorkGPUHours, r.Select.Providers = 1000, []string{"aws", "gcp", "vast"} }},
		{"inference-online", "T4", func(r *Request) {
			r.HoursPerMonth, r.HorizonMonths, r.Select.Providers, r.Select.China = 730, 12, []string{"aws"}, &yes
		}},
	}
	for _, tt := range tests {
		req := request(t, a, tt.scenario, tt.ref)
		tt.set(req)
		res := run(t, a, req)
		opt := SkyPilotOptions{Scenario: tt.scenario, RegionPinned: len(req.Select.Regions) > 0}
		var buf bytes.Buffer
		err := WriteSkyPilot(&buf, a.Catalog, res.Plans, opt)
		first := -1
		for i := range res.Plans {
			if skyPilotBlocker(a.Catalog, &res.Plans[i], opt) == "" {
				first = i
				break
			}
		}
		what := fmt.Sprintf("%s %v", tt.scenario, req.Select.Providers)
		if first < 0 {
			// AWS China only: nothing SkyPilot knows.
			if err == nil || !strings.Contains(err.Error(), "mainland-China") {
				t.Errorf("%s: err = %v, want one saying SkyPilot has no mainland-China region", what, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		p := &res.Plans[first]
		out := buf.String()
		if !strings.HasPrefix(out, fmt.Sprintf("# SkyPilot task for gpuscout's plan #%d: %s %s,", p.Rank, p.Offering.Provider, p.Offering.InstanceType)) {
			t.Errorf("%s: exported another plan than #%d:\n%s", what, p.Rank, out)
		}
		checkSkyTask(t, a.Catalog, sky, p, opt, out)
		t.Logf("%s: exported #%d %s %s %s, %d better plans skipped", what, p.Rank, p.Offering.Provider, p.Offering.InstanceType, p.Model, first)
		for i := range res.Plans[:first] {
			s := &res.Plans[i]
			line := fmt.Sprintf("#   #%d %s %s (%s): %s", s.Rank, s.Offering.Provider, s.Offering.InstanceType, planName(s), skyPilotBlocker(a.Catalog, s, opt))
			if i < maxSkippedListed && !strings.Contains(out, line) {
				t.Errorf("%s: skipped plan not listed as %q:\n%s", what, line, out)
			}
		}
	}
}

// skyOffering finds an offering of the default catalog, or makes one from
// another with a new instance type and SkyPilot accelerator name (a row the
// catalog does not have yet).
func skyOffering(t *testing.T, c *catalog.Catalog, prov, typ string) *catalog.Offering {
	t.Helper()
	for i := range c.Offerings {
		if o := &c.Offerings[i]; o.Provider == prov && o.InstanceType == typ && o.Region != "" && !o.China {
			return o
		}
	}
	t.Fatalf("no %s %s in the catalog", prov, typ)
	return nil
}

func skyVariant(o *catalog.Offering, typ, skyAccel string, gpu *catalog.GPU, count float64) *catalog.Offering {
	v := *o
	v.InstanceType, v.SkyPilotAccelerator = typ, skyAccel
	if gpu != nil {
		v.GPU, v.GPUCount = gpu, count
	}
	return &v
}

// skyTask exports plans and parses the task: the YAML must parse, and its
// task and resources keys be SkyPilot's.
func skyTask(t *testing.T, c *catalog.Catalog, plans []Plan, opt SkyPilotOptions) (out string, task, res map[string]any) {
	t.Helper()
	var buf bytes.Buffer
	if err := WriteSkyPilot(&buf, c, plans, opt); err != nil {
		t.Fatalf("%s %s: %v", plans[0].Offering.Provider, plans[0].Offering.InstanceType, err)
	}
	out = buf.String()
	if err := yaml.Unmarshal(buf.Bytes(), &task); err != nil {
		t.Fatalf("not YAML: %v\n%s", err, out)
	}
	res, _ = task["resources"].(map[string]any)
	checkKeys(t, "export", "task", task, skyTaskKeys)
	checkKeys(t, "export", "resources", res, skyResourceKeys)
	return out, task, res
}

// Issue 23 part 8: a cluster or managed job of several nodes asks for
// SkyPilot's best network (`resources: network_tier: best`: EFA on AWS,
// GPUDirect-TCPX on GCP A3 High, InfiniBand on Nebius H100/H200 ×8) where
// SkyPilot supports it, and says in the header why not elsewhere, without
// the key SkyPilot would reject there. One node, and the replicas of a
// service, ask for nothing.
func TestSkyPilotNetworkTier(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	p5 := skyOffering(t, c, "aws", "p5.48xlarge")
	var nebiusH100, nebiusL40S, lambda8 *catalog.Offering
	for i := range c.Offerings {
		o := &c.Offerings[i]
		switch {
		case o.Provider == "nebius" && o.SkyPilotAccelerator == "H100" && o.GPUCount == 8:
			nebiusH100 = o
		case o.Provider == "nebius" && o.SkyPilotAccelerator == "L40S" && o.GPUCount > 1:
			nebiusL40S = o
		case o.Provider == "lambda" && o.GPUCount == 8 && o.Region != "":
			lambda8 = o
		}
	}
	if nebiusH100 == nil || nebiusL40S == nil || lambda8 == nil {
		t.Fatal("no Nebius H100 ×8, Nebius L40S ×2+ or Lambda ×8 row in the catalog")
	}
	tests := []struct {
		name     string
		o        *catalog.Offering
		nodes    int
		model    string
		deadline float64
		scenario string
		wantBest bool
		wantNote string // in the header; "" for none about the network
	}{
		{"2-node AWS p5 cluster", p5, 2, cost.ModelOnDemand, 0, "llm-pretraining", true, "# network_tier: best: SkyPilot turns EFA on for the 2 nodes"},
		{"1-node AWS p5", p5, 1, cost.ModelOnDemand, 0, "llm-pretraining", false, ""},
		{"4-node AWS p5 spot job", p5, 4, cost.ModelSpot, 0, "llm-finetuning", true, "aws.use_internal_ips: true"},
		{"2-node AWS p5 spot job under a deadline", p5, 2, cost.ModelSpot, 240, "llm-pretraining", true, "EFA"},
		{"3 AWS p5 replicas of a service", p5, 3, cost.ModelOnDemand, 0, "inference-online", false, ""},
		{"2-node AWS trn1 cluster", skyOffering(t, c, "aws", "trn1.32xlarge"), 2, cost.ModelOnDemand, 0, "llm-pretraining", true, "not trn1.32xlarge; gpuscout priced efa at 800 Gbps"},
		{"2-node GCP a3-highgpu-8g", skyOffering(t, c, "gcp", "a3-highgpu-8g"), 2, cost.ModelOnDemand, 0, "llm-pretraining", true, "GPUDirect-TCPX"},
		{"3 GCP a3-megagpu-8g replicas of a service", skyOffering(t, c, "gcp", "a3-megagpu-8g"), 3, cost.ModelOnDemand, 0, "inference-online", false, ""},
		{"2-node Nebius H100 ×8", nebiusH100, 2, cost.ModelOnDemand, 0, "llm-pretraining", true, "InfiniBand"},
		{"2-node Nebius L40S", nebiusL40S, 2, cost.ModelOnDemand, 0, "cv-training", false, "# no network_tier: SkyPilot accepts network_tier: best on nebius only for H100:8 and H200:8"},
		{"2-node Lambda ×8", lambda8, 2, cost.ModelOnDemand, 0, "llm-pretraining", false, "# no network_tier: SkyPilot does not support network_tier on lambda"},
		{"2-node Azure ND H100 v5", skyOffering(t, c, "azure", "Standard_ND96isr_H100_v5"), 2, cost.ModelOnDemand, 0, "llm-pretraining", false, "# no network_tier: SkyPilot does not support network_tier on azure (it would reject the key); gpuscout priced infiniband"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Plan{Rank: 1, Offering: tt.o, Instances: tt.nodes, Model: tt.model, Deadline: tt.deadline, Currency: money.USD}
			out, _, res := skyTask(t, c, []Plan{p}, SkyPilotOptions{Scenario: tt.scenario})
			got, set := res["network_tier"]
			if set != tt.wantBest || set && got != "best" {
				t.Errorf("network_tier %v (set %v), want set %v\n%s", got, set, tt.wantBest, out)
			}
			if tt.wantNote != "" && !strings.Contains(out, tt.wantNote) {
				t.Errorf("no %q in the header:\n%s", tt.wantNote, out)
			}
			if tt.wantNote == "" && strings.Contains(out, "network_tier") {
				t.Errorf("a network comment or key for %d node(s) of %s:\n%s", tt.nodes, tt.scenario, out)
			}
			if tt.deadline > 0 {
				anyOf, _ := res["any_of"].([]any)
				if len(anyOf) != 2 {
					t.Errorf("want any_of [spot, on-demand] beside network_tier:\n%s", out)
				}
			}
		})
	}
}

// Issue 23 part 8: a plan whose instance type or accelerator SkyPilot's
// own catalog of the cloud lacks is refused with the reason, naming the
// accelerator and the cloud, and never exported as another machine:
// SkyPilot would stop at "Invalid instance type", launch the VM without its
// GPUs, or take an accelerator name it does not know for the one of its own
// it matches in part. The next plan SkyPilot can launch is exported, the
// refused one listed above it with why, and a plan on the shape the user
// asked for is said not to be what the task runs.
func TestSkyPilotRefusesUnlaunchableAccelerators(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	a3 := skyOffering(t, c, "gcp", "a3-highgpu-8g")
	gb200 := c.GPU("GB200")
	if gb200 == nil {
		t.Fatal("no GB200 in the catalog")
	}
	var lambda *catalog.Offering
	for i := range c.Offerings {
		if o := &c.Offerings[i]; o.Provider == "lambda" && o.Region != "" {
			lambda = o
			break
		}
	}
	refused := []struct {
		name       string
		o          *catalog.Offering
		accel, why string // the accelerator and the reason the refusal names
	}{
		// GCP's A4X (GB200 ×4): SkyPilot infers accelerators for a2, a3,
		// a4 and g2 machine types only.
		{"GCP A4X", skyVariant(a3, "a4x-highgpu-4g", "", gb200, 4), "4×GB200", "SkyPilot's gcp catalog gives instance type a4x-highgpu-4g no accelerator"},
		// Retired AWS families: catalogs/v9 aws/vms.csv has no g2, g3,
		// g3s or p2 rows (f2.6xlarge is followed by g4ad.16xlarge), and
		// common/accelerators.csv lists K80 and M60 for Azure only.
		{"AWS g3 (M60)", skyOffering(t, c, "aws", "g3.4xlarge"), "M60", "SkyPilot's aws catalog lists no M60 accelerator, so it cannot launch g3.4xlarge"},
		{"AWS p2 (K80)", skyOffering(t, c, "aws", "p2.xlarge"), "K80", "SkyPilot's aws catalog lists no K80 accelerator"},
		{"AWS g2 (K520)", skyOffering(t, c, "aws", "g2.2xlarge"), "K520", "SkyPilot's aws catalog lists no K520 accelerator"},
		// g7 (RTX PRO 4500): catalogs/v9 aws/vms.csv goes from g6f to g7e.
		{"AWS g7 (RTX PRO 4500)", skyOffering(t, c, "aws", "g7.2xlarge"), "RTXPRO4500", "SkyPilot's aws catalog lists no RTXPRO4500 accelerator"},
		// Azure: no H200 on Azure in common/accelerators.csv; the RTX PRO
		// 6000 BSE family maps to no accelerator in fetch_azure.py; the
		// NVv2 family is dropped as deprecated.
		{"Azure ND H200 v5", skyOffering(t, c, "azure", "Standard_ND96isr_H200_v5"), "H200", "SkyPilot's azure catalog lists no H200 accelerator"},
		{"Azure NC RTX PRO 6000 BSE", skyOffering(t, c, "azure", "Standard_NC128ds_xl_RTXPRO6000BSE_v6"), "RTXPRO6000-Server", "SkyPilot's azure catalog has no accelerator for Standard_NC128ds_xl_RTXPRO6000BSE_v6"},
		{"Azure NVv2", skyOffering(t, c, "azure", "Standard_NV6s_v2"), "M60", "SkyPilot's azure catalog has no instance type Standard_NV6s_v2"},
		// A Lambda row not read from SkyPilot's catalog: no SkyPilot name.
		{"Lambda row without SkyPilot's name", skyVariant(lambda, "gpu_8x_a4_sxm", "", nil, 0), lambda.GPU.Name, "was not read from SkyPilot's lambda catalog"},
	}
	for _, tt := range refused {
		t.Run(tt.name, func(t *testing.T) {
			cloud := c.Provider(tt.o.Provider).SkyPilotCloud
			p := Plan{Rank: 1, Offering: tt.o, Instances: 1, Model: cost.ModelOnDemand, Currency: money.USD, AsAsked: true}
			why := skyPilotBlocker(c, &p, SkyPilotOptions{Scenario: "cv-training"})
			if !strings.Contains(why, tt.why) || !strings.Contains(why, tt.accel) || !strings.Contains(why, cloud) {
				t.Errorf("blocker %q, want one saying %q and naming %s on %s", why, tt.why, tt.accel, cloud)
			}
			// Alone it is an error that says why.
			err := WriteSkyPilot(io.Discard, c, []Plan{p}, SkyPilotOptions{Scenario: "cv-training"})
			if err == nil || !strings.Contains(err.Error(), tt.why) {
				t.Errorf("err = %v, want the refusal %q", err, tt.why)
			}
		})
	}
	// Those SkyPilot's catalog has are exported as they are, pinned to the
	// instance type, with accelerators only under SkyPilot's own name.
	for _, typ := range [][2]string{{"aws", "inf2.xlarge"}, {"aws", "trn1.2xlarge"}, {"aws", "g5.xlarge"}, {"aws", "g7e.2xlarge"},
		{"aws", "dl1.24xlarge"}, {"aws", "p5.48xlarge"}, {"azure", "Standard_NC4as_T4_v3"}, {"azure", "Standard_NC40ads_H100_v5"},
		{"gcp", "a3-megagpu-8g"}, {"gcp", "g2-standard-4"}} {
		o := skyOffering(t, c, typ[0], typ[1])
		p := Plan{Rank: 1, Offering: o, Instances: 1, Model: cost.ModelOnDemand, Currency: money.USD}
		if why := skyPilotBlocker(c, &p, SkyPilotOptions{Scenario: "cv-training"}); why != "" {
			t.Errorf("%s %s refused: %s", typ[0], typ[1], why)
			continue
		}
		out, _, res := skyTask(t, c, []Plan{p}, SkyPilotOptions{Scenario: "cv-training"})
		acc, hasAcc := res["accelerators"]
		if res["instance_type"] != o.InstanceType || hasAcc && acc != o.SkyPilotAccelerator+":"+fmtCount(o.GPUCount) || !hasAcc && o.SkyPilotAccelerator != "" {
			t.Errorf("%s %s: instance_type %v accelerators %v, want %s pinned with SkyPilot's own name or none\n%s", typ[0], typ[1], res["instance_type"], acc, o.InstanceType, out)
		}
	}

	// The A4X → Inferentia case: the plan on the shape asked for (GCP
	// A4X, GB200) ranks first; SkyPilot cannot launch it, so the task is
	// the next plan (AWS inf2), and the header says which plan was refused,
	// why, and that this is not the shape asked for.
	inf2 := skyOffering(t, c, "aws", "inf2.xlarge")
	plans := []Plan{
		{Rank: 1, Offering: refused[0].o, Instances: 1, Model: cost.ModelOnDemand, Currency: money.USD, AsAsked: true},
		{Rank: 2, Offering: inf2, Instances: 2, Model: cost.ModelOnDemand, Currency: money.USD},
	}
	out, task, res := skyTask(t, c, plans, SkyPilotOptions{Scenario: "inference-batch"})
	for _, want := range []string{
		"# SkyPilot task for gpuscout's plan #2: aws inf2.xlarge,",
		"#   #1 gcp a4x-highgpu-4g (on-demand): SkyPilot's gcp catalog gives instance type a4x-highgpu-4g no accelerator",
		"so it cannot launch it with its 4×GB200",
		"# not the shape you asked for: SkyPilot cannot launch the plans on it (skipped above, with why); this task is gpuscout's best plan SkyPilot can launch: 2 × inf2.xlarge, 1×Inferentia2 each",
		"# accelerators omitted: SkyPilot reads them from instance type inf2.xlarge in its aws catalog (Inferentia2:1 there, 1×Inferentia2 in gpuscout's terms)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if res["cloud"] != "aws" || res["instance_type"] != "inf2.xlarge" || res["accelerators"] != nil || task["num_nodes"] != 2 {
		t.Errorf("task = %v, want 2 × aws inf2.xlarge with its accelerators read from the instance type\n%s", task, out)
	}
	// Without a launchable plan it is an error naming the accelerator and
	// the cloud.
	err = WriteSkyPilot(io.Discard, c, plans[:1], SkyPilotOptions{Scenario: "inference-batch"})
	if err == nil || !strings.Contains(err.Error(), "SkyPilot can launch none of the 1 plans") || !strings.Contains(err.Error(), "gcp catalog") || !strings.Contains(err.Error(), "GB200") {
		t.Errorf("err = %v, want one naming GB200 and SkyPilot's gcp catalog", err)
	}
}

// The tables of what SkyPilot's catalogs have (export_skypilot_facts.go)
// agree with SkyPilot's common/accelerators.csv under shared/data, and cover
// every AWS and Azure GPU and GCP instance type of the catalog, so that a
// new one is classified rather than let through unchecked.
func TestSkyPilotCatalogFacts(t *testing.T) {
	c, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.Offerings {
		o := &c.Offerings[i]
		switch cloud := c.Provider(o.Provider).SkyPilotCloud; {
		case o.SkyPilotAccelerator != "":
		case cloud == "aws" || cloud == "azure":
			if _, ok := skyAccelName[cloud][o.GPU.Name]; !ok {
				t.Errorf("%s %s: no SkyPilot name for %s on %s in skyAccelName", o.Provider, o.InstanceType, o.GPU.Name, cloud)
			}
		case cloud == "gcp":
			acc, ok := skyGCPInstanceAccels[o.InstanceType]
			if !ok || acc != skyGCPAccelTypes[o.InstanceType]+":"+fmtCount(o.GPUCount) {
				t.Errorf("gcp %s: SkyPilot's accelerators %q, want %s:%s", o.InstanceType, acc, skyGCPAccelTypes[o.InstanceType], fmtCount(o.GPUCount))
			}
		}
	}
	sky := readSkyCSVs(t)
	for cloud, names := range skyCatalogAccels {
		var want []string
		for name, clouds := range sky.clouds {
			if clouds[cloud] {
				want = append(want, name)
			}
		}
		slices.Sort(want)
		got := slices.Sorted(slices.Values(names))
		if !slices.Equal(got, want) {
			t.Errorf("%s: skyCatalogAccels %v, SkyPilot's accelerators.csv %v", cloud, got, want)
		}
	}
}
