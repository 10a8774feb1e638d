package agentconfig

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/yamlfields"
)

func sample() *Config {
	return &Config{Version: Version,
		Node: Node{Provider: "aws", InstanceType: "p4d.24xlarge", Region: "us-east-1", GPU: "A100-SXM4-40GB", GPUCount: 8, Instances: 2,
			PricingModel: "spot", PricePerHour: PriceOf(decimal.NewNullDecimal(decimal.RequireFromString("55.6"))),
			OnDemandPricePerHour: PriceOf(decimal.NewNullDecimal(decimal.RequireFromString("218.4"))), Currency: "CNY"},
		Agent:    Agent{Listen: "127.0.0.1:0", Interval: Duration(2 * time.Second), FakeGPUs: 2, StateDir: "/tmp/gs"},
		Rules:    DefaultRules(Budgets{EgressBytesPerSecond: 1e6, BurnRatePerHour: 120}),
		Notify:   Notify{Alertmanager: []string{"http://127.0.0.1:9093"}, Exec: []ExecAction{{Name: "scale_out", Argv: []string{"/bin/true"}}}},
		Autostop: Autostop{Enabled: true, RequireNoSSH: true, Hook: []string{"/usr/local/bin/checkpoint", "--now"}, DryRun: true},
	}
}

// metricOK is a stand-in for the agent's metric registry.
func metricOK(name string) ([]string, bool) {
	if strings.HasPrefix(name, "gpuscout_gpu_") {
		return []string{"gpu", "uuid"}, true
	}
	if strings.HasPrefix(name, "gpuscout_") {
		return []string{"collector", "currency"}, true
	}
	return nil, false
}

// What Write writes, Read reads back as the same config with defaults
// applied; prices are YAML numbers, durations short.
func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	for _, want := range []string{"price_per_hour: 55.6\n", "on_demand_price_per_hour: 218.4\n", "currency: CNY\n", "for: 5m\n", "for: 30m\n", "interval: 2s\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("config lacks %q:\n%s", want, s)
		}
	}
	got, err := Read(&buf, "agent.yaml", Options{Metric: metricOK})
	if err != nil {
		t.Fatal(err)
	}
	want := sample()
	want.ApplyDefaults()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n%+v\nwant\n%+v", got, want)
	}
}

// A file with only the version gets every documented default.
func TestDefaults(t *testing.T) {
	c, err := Read(strings.NewReader("version: 1\n"), "a.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"listen", c.Agent.Listen, "127.0.0.1:9836"},
		{"interval", c.Agent.Interval.D(), time.Second},
		{"state dir", c.Agent.StateDir, "/var/lib/gpuscout"},
		{"queue dir", c.Notify.QueueDir, "/var/lib/gpuscout/queue"},
		{"instances", c.Node.Instances, 1},
		{"gpu", c.Collect.GPU, "auto"},
		{"egress basis", c.Collect.Network.EgressBasis, "transmit"},
		{"idle utilization", *c.Autostop.IdleUtilization, 0.05},
		{"idle for", c.Autostop.IdleFor.D(), 30 * time.Minute},
		{"stop", c.Autostop.Stop, []string{"shutdown", "-h", "now"}},
		{"autostop enabled", c.Autostop.Enabled, false},
		{"rules", len(c.Rules), 0},
	} {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if d := Default(); len(d.Rules) != 3 || d.Validate(Options{Metric: metricOK}) != nil {
		t.Errorf("Default: %d rules, validate %v; want the 3 budget-free built-ins, valid", len(d.Rules), d.Validate(Options{Metric: metricOK}))
	}
}

const base = `version: 1
node:
  provider: aws
  instance_type: p5.48xlarge
agent:
  interval: 1s
notify:
  exec:
    - name: scale_out
      argv: [/bin/scale-out]
rules:
  - name: GPUIdle
    metric: gpuscout_gpu_utilization_ratio
    op: "<"
    threshold: 0.05
    for: 30m
    aggregate: max
    match: {gpu: "0"}
`

// Bad files: each error names the file, the line and the field.
func TestReadErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		old, new string
		want     string
	}{
		{"unknown metric", "metric: gpuscout_gpu_utilization_ratio", "metric: gpu_util", `a.yaml:13: field rules[0].metric: unknown metric "gpu_util"`},
		{"bad duration", "for: 30m", "for: half an hour", `a.yaml:16: field rules[0].for: value "half an hour" is not a duration`},
		{"missing threshold", "    threshold: 0.05\n", "", `a.yaml:12: field rules[0].threshold: missing`},
		{"bad op", `op: "<"`, `op: "=="`, `a.yaml:14: field rules[0].op: value "=="`},
		{"unknown field", "    aggregate: max\n", "    aggregate: max\n    colour: red\n", `a.yaml:18: field colour: unknown field in rules[0]`},
		{"aggregate", "aggregate: max", "aggregate: median", `a.yaml:17: field rules[0].aggregate: value "median"`},
		{"match label", `match: {gpu: "0"}`, `match: {host: "a"}`, `a.yaml:18: field rules[0].match.host: label "host" is not a label`},
		{"exec name", "    aggregate: max\n", "    aggregate: max\n    action: exec:page\n", `a.yaml:18: field rules[0].action: value "exec:page" names no notify.exec action`},
		{"interval bound", "interval: 1s", "interval: 1ms", `a.yaml:6: field agent.interval: value 1ms is outside the allowed range 100ms to 10m`},
		{"negative duration", "interval: 1s", "interval: -1s", `a.yaml:6: field agent.interval: value "-1s" is negative`},
		{"threshold type", "threshold: 0.05", "threshold: low", `a.yaml:15: field rules[0].threshold: value "low" is not a number`},
		{"exec argv", "      argv: [/bin/scale-out]\n", "", `a.yaml:9: field notify.exec[0].argv: missing`},
		{"version 0", "version: 1", "version: 0", "a.yaml:1: field version: format version 0 (or no version) is the format gpuscout wrote before the agent"},
		{"no version", "version: 1\n", "", "field version: format version 0 (or no version)"},
		{"listen", "agent:\n", "agent:\n  listen: localhost\n", `a.yaml:6: field agent.listen: value "localhost" is not an address`},
		{"fake gpus", "agent:\n", "agent:\n  fake_gpus: 65\n", `field agent.fake_gpus: value 65 is outside the allowed range 0 to 64`},
		{"idle utilization", "agent:\n", "autostop:\n  idle_utilization: 5\nagent:\n", `a.yaml:6: field autostop.idle_utilization: value 5 is outside the allowed range 0 to 1`},
		{"url", "notify:\n", "notify:\n  alertmanager: localhost:9093\n", `a.yaml:8: field notify.alertmanager[0]: value "localhost:9093" is not a URL`},
		{"currency", "  instance_type: p5.48xlarge\n", "  instance_type: p5.48xlarge\n  price_per_hour: 98.3\n", `a.yaml:2: field node.currency: value ""`},
		{"duplicate rule", "", "  - {name: GPUIdle, metric: gpuscout_collector_up, op: <, threshold: 1}\n", `a.yaml:19: field rules[1].name: value "GPUIdle" is the name of an earlier rule`},
		{"alias", "", "x: &a 1\n", "a.yaml:19: field x: unknown field"},
		// An empty value written out is not the default: interval 0s sampled
		// every second, stop [] ran shutdown -h now.
		{"interval 0s", "interval: 1s", "interval: 0s", "a.yaml:6: field agent.interval: an empty value (0s) stands for the default (1s) only when the field is left out"},
		{"stop []", "agent:\n", "autostop:\n  enabled: true\n  dry_run: false\n  stop: []\nagent:\n", "a.yaml:8: field autostop.stop: an empty value ([]) stands for the default ([shutdown, -h, now])"},
	} {
		src := base
		if tc.old == "" {
			src += tc.new
		} else {
			if !strings.Contains(src, tc.old) {
				t.Fatalf("%s: base lacks %q", tc.name, tc.old)
			}
			src = strings.Replace(src, tc.old, tc.new, 1)
		}
		_, err := Read(strings.NewReader(src), "a.yaml", Options{Metric: metricOK})
		var ye *yamlfields.Error
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &ye) {
			t.Errorf("%s: got %v, want a file:line error containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := Read(strings.NewReader(base), "a.yaml", Options{Metric: metricOK}); err != nil {
		t.Errorf("base: %v", err)
	}
}

// The budget rules appear only with a budget; every built-in is valid.
func TestDefaultRules(t *testing.T) {
	names := func(rs []Rule) []string {
		var out []string
		for _, r := range rs {
			out = append(out, r.Name)
		}
		return out
	}
	if got, want := names(DefaultRules(Budgets{})), []string{"GPUMemoryHigh", "GPUIdle", "CollectorDown"}; !slices.Equal(got, want) {
		t.Errorf("no budgets: got %v, want %v", got, want)
	}
	all := DefaultRules(Budgets{EgressBytesPerSecond: 1, EgressMonthlyCost: 1, BurnRatePerHour: 1})
	if got, want := names(all), []string{"GPUMemoryHigh", "GPUIdle", "CollectorDown", "EgressRateHigh", "EgressCostOverBudget", "SpendBurnRateOverBudget"}; !slices.Equal(got, want) {
		t.Errorf("all budgets: got %v, want %v", got, want)
	}
	c := &Config{Version: Version, Rules: all}
	c.ApplyDefaults()
	if err := c.Validate(Options{Metric: metricOK}); err != nil {
		t.Error(err)
	}
	idle := all[1]
	for _, tc := range []struct {
		v    float64
		want bool
	}{{0.049, true}, {0.05, false}, {0.9, false}} {
		if got := idle.Holds(tc.v); got != tc.want {
			t.Errorf("GPUIdle.Holds(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
}

func TestNetworkCounts(t *testing.T) {
	c := Collect{Network: Network{Include: []string{"eth*", "ens*"}}}
	c.applyDefaults()
	for _, tc := range []struct {
		name string
		want bool
	}{{"eth0", true}, {"ens5", true}, {"lo", false}, {"docker0", false}, {"wlan0", false}} {
		if got := c.Network.Counts(tc.name); got != tc.want {
			t.Errorf("Counts(%q) = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDurationString(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{{5 * time.Minute, "5m"}, {time.Hour, "1h"}, {90 * time.Minute, "1h30m"}, {time.Second, "1s"}, {100 * time.Millisecond, "100ms"}, {0, "0s"}} {
		if got := Duration(tc.d).String(); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.d, got, tc.want)
		}
	}
}
