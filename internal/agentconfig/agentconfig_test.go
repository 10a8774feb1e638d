package agentconfig

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

func sample() *Config {
	return &Config{Version: Version,
		Node: Node{Provider: "aws", InstanceType: "p4d.24xlarge", Region: "us-east-1", GPU: "A100-SXM4-40GB", GPUCount: 8, Instances: 2,
			PricingModel: "spot", PricePerHour: Price(55.6, true), OnDemandPricePerHour: Price(218.4, true), Currency: "CNY"},
		Alerts: []Alert{{Name: "GPUIdle", Expr: "gpuscout_gpu_utilization_ratio < 0.05", For: "30m", Action: ActionStop}},
		Notify: Notify{Alertmanager: "http://127.0.0.1:9093"}}
}

// What Write writes, Read reads back unchanged; prices are YAML numbers.
func TestRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	if err := Write(&buf, sample()); err != nil {
		t.Fatal(err)
	}
	s := buf.String()
	for _, want := range []string{"price_per_hour: 55.6\n", "on_demand_price_per_hour: 218.4\n", "currency: CNY\n"} {
		if !strings.Contains(s, want) {
			t.Errorf("config lacks %q:\n%s", want, s)
		}
	}
	got, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, sample()) {
		t.Errorf("read back %+v, want %+v", got, sample())
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*Config)
		want string
	}{
		{"version", func(c *Config) { c.Version = 3 }, "version 3"},
		{"instances", func(c *Config) { c.Node.Instances = 0 }, "node.instances 0"},
		{"price", func(c *Config) { c.Node.PricePerHour = Price(-1, true) }, "node.price_per_hour -1"},
		{"currency", func(c *Config) { c.Node.Currency = "" }, `node.currency ""`},
		{"action", func(c *Config) { c.Alerts[0].Action = "reboot" }, `action "reboot"`},
		{"for", func(c *Config) { c.Alerts[0].For = "soon" }, `for "soon"`},
		{"unknown price is fine", func(c *Config) { c.Node.PricePerHour = nil }, ""},
	} {
		c := sample()
		tc.edit(c)
		err := c.Validate()
		if (tc.want == "") != (err == nil) || (err != nil && !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: got %v, want %q", tc.name, err, tc.want)
		}
	}
	if _, err := Read(strings.NewReader("version: 0\nnode: {provider: aws}\ncolour: red\n")); err == nil || !strings.Contains(err.Error(), "colour") {
		t.Errorf("unknown field: got %v", err)
	}
}
