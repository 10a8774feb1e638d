package collect

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
)

// The fixture is this machine's /proc/net/dev, in the kernel's format.
func TestParseNetDev(t *testing.T) {
	ifs, err := ParseNetDev([]byte(fixture(t)))
	if err != nil {
		t.Fatal(err)
	}
	want := []IfaceBytes{{"lo", 26814382, 26814382}, {"ifb0", 0, 0}, {"ifb1", 0, 0}, {"eth0", 531574878, 1119491}}
	if len(ifs) != len(want) {
		t.Fatalf("got %+v, want %+v", ifs, want)
	}
	for i := range want {
		if ifs[i] != want[i] {
			t.Errorf("interface %d: got %+v, want %+v", i, ifs[i], want[i])
		}
	}
	for _, bad := range []string{"", "not a header\nx\n", fixture(t) + "  eth1: 12 x\n"} {
		if _, err := ParseNetDev([]byte(bad)); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func netDev(eth0TX, dockerTX uint64) string {
	h := "Inter-|   Receive                                                |  Transmit\n" +
		" face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets errs drop fifo colls carrier compressed\n"
	row := func(name string, tx uint64) string {
		return "  " + name + ": 100 1 0 0 0 0 0 0 " + decimal.NewFromInt(int64(tx)).String() + " 1 0 0 0 0 0 0\n"
	}
	return h + row("lo", 5e9) + row("eth0", eth0TX) + row("docker0", dockerTX)
}

// Two readings 10 s apart: 1e8 bytes more on eth0 is 1e7 B/s (docker0 and
// lo excluded by default), 1e7 × 730 × 3600 = 2.628e13 bytes a month; on a
// test table (first 100 GB free, then 0.09 up to 10240 GB, then 0.085) the
// 26280 GB cost (10240-100)×0.09 + (26280-10240)×0.085 = 912.6 + 1363.4 =
// 2276 USD, then in CNY through the default FX table.
func TestNetworkEgress(t *testing.T) {
	root := procRoot(t, map[string]string{"net/dev": netDev(1e9, 1e9)})
	tier := func(v float64) *float64 { return &v }
	table := &catalog.EgressTable{Provider: "test", Unit: "GB", Currency: money.USD, Paths: map[string]catalog.EgressPath{
		catalog.PathInternet: {Tiers: []catalog.EgressTier{{UpTo: tier(100), Price: decimal.Zero}, {UpTo: tier(10240), Price: decimal.RequireFromString("0.09")},
			{Price: decimal.RequireFromString("0.085")}}}}}
	n := &Network{Root: root, Egress: table, Provider: "test", Region: "r1"}
	n.Net = agentconfig.Default().Collect.Network
	var b agent.Batch
	if err := n.Collect(t0, &b); err != nil {
		t.Fatal(err)
	}
	if _, ok := get(&b, agent.EgressRate); ok {
		t.Error("a rate from one reading")
	}
	if v, ok := get(&b, agent.NetworkTransmit, "docker0"); !ok || v != 1e9 {
		t.Errorf("docker0 transmit %v, want 1e9 (counters of every interface are exported)", v)
	}
	os.WriteFile(filepath.Join(root, "net/dev"), []byte(netDev(1e9+1e8, 9e9)), 0o644)
	b = agent.Batch{}
	if err := n.Collect(t0.Add(10*time.Second), &b); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		metric string
		labels []string
		want   float64
	}{
		{agent.EgressRate, nil, 1e7},
		{agent.EgressProjectedBytes, nil, 2.628e13},
		{agent.EgressProjectedCost, []string{"USD", "test", "r1"}, 2276},
	} {
		if got, ok := get(&b, tc.metric, tc.labels...); !ok || math.Abs(got-tc.want) > 1e-6*tc.want {
			t.Errorf("%s%v = %v (present %v), want %v", tc.metric, tc.labels, got, ok, tc.want)
		}
	}
	// In CNY with the default FX table.
	n.Currency, n.FX = money.CNY, money.DefaultFX()
	want, err := money.DefaultFX().Convert(decimal.NewFromInt(2276), money.USD, money.CNY)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "net/dev"), []byte(netDev(1e9+2e8, 9e9)), 0o644)
	b = agent.Batch{}
	n.Collect(t0.Add(20*time.Second), &b)
	if got, ok := get(&b, agent.EgressProjectedCost, "CNY", "test", "r1"); !ok || math.Abs(got-want.InexactFloat64()) > 1e-3 {
		t.Errorf("cost in CNY %v, want %v", got, want)
	}
	// A counter that goes back (an interface reset) gives no rate, then resumes.
	os.WriteFile(filepath.Join(root, "net/dev"), []byte(netDev(5, 9e9)), 0o644)
	b = agent.Batch{}
	n.Collect(t0.Add(30*time.Second), &b)
	if _, ok := get(&b, agent.EgressRate); ok {
		t.Error("a rate across a counter reset")
	}
	// No table: the cost is unknown, not zero; the bytes are still projected.
	n.Egress = nil
	os.WriteFile(filepath.Join(root, "net/dev"), []byte(netDev(15, 9e9)), 0o644)
	b = agent.Batch{}
	n.Collect(t0.Add(40*time.Second), &b)
	if v, ok := get(&b, agent.EgressRate); !ok || v != 1 {
		t.Errorf("rate after the reset %v, want 1 B/s", v)
	}
	for _, s := range b.Series() {
		if s.Metric.Name == agent.EgressProjectedCost {
			t.Errorf("a cost without prices: %+v", s)
		}
	}
}

// An unreadable /proc file fails the collector with the path in the error.
func TestUnreadableProc(t *testing.T) {
	root := t.TempDir()
	for _, c := range []agent.Collector{&Network{Root: root}, &Cost{Root: root}} {
		var b agent.Batch
		err := c.Collect(t0, &b)
		if err == nil || !strings.Contains(err.Error(), root) {
			t.Errorf("%s: err %v, want one naming %s", c.Name(), err, root)
		}
	}
	os.WriteFile(filepath.Join(root, "uptime"), []byte("soon\n"), 0o644)
	var b agent.Batch
	if err := (&Cost{Root: root}).Collect(t0, &b); err == nil || !strings.Contains(err.Error(), `"soon" is not seconds`) {
		t.Errorf("bad uptime: %v", err)
	}
}

// 2 instances at 2.5 USD an hour: burn 5 USD/h; after 7280.06 s up, spend
// 5 × 7280.06 / 3600 = 10.111194(4) USD. Without a price: uptime only.
func TestCost(t *testing.T) {
	root := procRoot(t, map[string]string{"uptime": "7280.06 4480.60\n"})
	c := &Cost{Root: root, Price: decimal.NewNullDecimal(decimal.RequireFromString("2.5")), Currency: money.USD, Instances: 2, InstanceType: "p5.48xlarge"}
	var b agent.Batch
	if err := c.Collect(t0, &b); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		metric string
		labels []string
		want   float64
	}{
		{agent.NodeUptime, nil, 7280.06},
		{agent.CostPricePerHour, []string{"USD", "p5.48xlarge"}, 2.5},
		{agent.CostBurnRate, []string{"USD"}, 5},
		{agent.CostSpend, []string{"USD"}, 10.111194},
	} {
		if got, ok := get(&b, tc.metric, tc.labels...); !ok || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("%s%v = %v (present %v), want %v", tc.metric, tc.labels, got, ok, tc.want)
		}
	}
	c.Price = decimal.NullDecimal{}
	b = agent.Batch{}
	c.Collect(t0, &b)
	if len(b.Series()) != 1 {
		t.Errorf("without a price: %d series, want the uptime only", len(b.Series()))
	}
}
