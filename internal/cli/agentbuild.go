package cli

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/shopspring/decimal"

	"github.com/gpuscout/gpuscout/internal/agent"
	"github.com/gpuscout/gpuscout/internal/agent/collect"
	"github.com/gpuscout/gpuscout/internal/agentconfig"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cloudmeta"
	"github.com/gpuscout/gpuscout/internal/gpu/nvml"
	"github.com/gpuscout/gpuscout/internal/money"
)

// agentProcRoot is where the agent reads net/dev and uptime; tests point it
// at a fixture.
var agentProcRoot = "/proc"

// agentOpenNVML opens NVML for the agent; tests replace it.
var agentOpenNVML = nvml.Open

// agentPlan is what an agent built from a config watches: its collectors
// and one line describing each, for `agent check` and the start-up log.
type agentPlan struct {
	collectors []agent.Collector
	lines      []string // "name: what"
	closers    []func() error
}

func (p *agentPlan) add(c agent.Collector, format string, a ...any) {
	if c != nil {
		p.collectors = append(p.collectors, c)
	}
	p.lines = append(p.lines, fmt.Sprintf(format, a...))
}

func (p *agentPlan) close() {
	for _, c := range p.closers {
		c()
	}
}

// buildAgent makes the collectors the config asks for. A config that does
// not say what the node is (node.provider and node.instance_type empty) gets
// the instance's identity from GPUSCOUT_CLOUD or the cloud's metadata
// service, as `gpuscout env` finds it, so that the catalog prices it.
func buildAgent(ctx context.Context, cfg *agentconfig.Config, start time.Time) (*agentPlan, error) {
	p := &agentPlan{}
	if cfg.Node.Provider == "" && cfg.Node.InstanceType == "" {
		res, err := cloudmeta.Identify(ctx, os.Getenv(cloudmeta.EnvOverride), envProbe.clients(), cloudmeta.DefaultTimeout)
		switch {
		case err != nil:
			return nil, usagef("%s: %v", cloudmeta.EnvOverride, err)
		case res.Identity != nil:
			id := res.Identity
			cfg.Node.Provider, cfg.Node.InstanceType, cfg.Node.Region = id.Provider, id.InstanceType, id.Region
			p.add(nil, "node: %s %s in %s, identified by %s (the config names no node)", id.Provider, id.InstanceType, id.Region, id.Source)
		default:
			p.add(nil, "node: not named in the config and no cloud metadata service answered within %s", cloudmeta.DefaultTimeout)
		}
	}
	switch {
	case cfg.Agent.FakeGPUs > 0:
		f, err := collect.NewFakeGPUs(cfg.Agent.FakeGPUs, start)
		if err != nil {
			return nil, err
		}
		p.add(f, "gpu: %d FAKE GPUs replaying a recorded H200 trace (labelled fake=\"true\", model FAKE NVIDIA H200)", cfg.Agent.FakeGPUs)
	case cfg.Collect.GPU == agentconfig.GPUOff:
		p.add(nil, "gpu: off (collect.gpu)")
	default:
		n, err := agentOpenNVML()
		if err == nil {
			var g *collect.GPU
			if g, err = collect.NewGPU(n); err == nil {
				g.PCIe = cfg.Collect.PCIe
				pcie := "PCIe throughput off (collect.pcie)"
				if g.PCIe {
					pcie = "PCIe throughput on (about 40 ms a GPU each sample)"
				}
				p.closers = append(p.closers, g.Close, n.Close)
				p.add(g, "gpu: %d GPUs through NVML (%s); %s", g.GPUs(), n.Library().Path, pcie)
				break
			}
			n.Close()
		}
		if cfg.Collect.GPU == agentconfig.GPUNVML {
			r := &collect.NVMLRetry{Open: agentOpenNVML, Every: 30 * time.Second, PCIe: cfg.Collect.PCIe}
			p.closers = append(p.closers, r.Close)
			p.add(r, "gpu: NVML required (collect.gpu: nvml) but it fails now: %v; the gpu collector reports down and tries again every 30s", err)
		} else {
			p.add(nil, "gpu: none (collect.gpu auto, and NVML does not load: %v)", err)
		}
	}
	net := &collect.Network{Root: agentProcRoot, Net: cfg.Collect.Network, Provider: cfg.Node.Provider, Region: cfg.Node.Region,
		Currency: money.Currency(cfg.Node.Currency), FX: money.DefaultFX()}
	egress := "off"
	if cfg.Collect.Network.EgressBasis != agentconfig.EgressOff {
		egress = "bytes sent on the counted interfaces, an upper bound of billed egress (private destinations included)"
		if cat, err := catalog.Default(); err == nil && cfg.Node.Provider != "" {
			net.Egress = cat.Egress(cfg.Node.Provider, cfg.Node.Region)
		}
		if net.Egress != nil {
			egress += fmt.Sprintf("; priced with %s %s internet egress tiers (%s)", net.Egress.Provider, net.Egress.Group, net.Egress.PathSource(catalog.PathInternet))
		} else {
			egress += fmt.Sprintf("; cost unknown: no sourced egress prices for provider %q region %q", cfg.Node.Provider, cfg.Node.Region)
		}
	}
	p.add(net, "network: %s/net/dev, counting %s; egress: %s", agentProcRoot, countedIfaces(cfg), egress)
	c := &collect.Cost{Root: agentProcRoot, Instances: cfg.Node.Instances, InstanceType: cfg.Node.InstanceType}
	price, src := nodePrice(cfg)
	if price.Known {
		c.Price, c.Currency = decimal.NewNullDecimal(price.Value), price.Currency
		p.add(c, "cost: %s %s per instance-hour (%s) × node.instances %d × uptime since boot", price.Value, price.Currency, src, cfg.Node.Instances)
	} else {
		p.add(c, "cost: price unknown (%s): uptime only, no spend or burn rate", src)
	}
	return p, nil
}

func countedIfaces(cfg *agentconfig.Config) string {
	n := cfg.Collect.Network
	s := "every interface"
	if len(n.Include) > 0 {
		s = fmt.Sprintf("interfaces %v", n.Include)
	}
	if len(n.Exclude) > 0 {
		s += fmt.Sprintf(" except %v", n.Exclude)
	}
	if ifs, err := collect.ReadNetDev(agentProcRoot); err == nil {
		var now []string
		for _, x := range ifs {
			if n.Counts(x.Name) {
				now = append(now, x.Name)
			}
		}
		s += fmt.Sprintf(" (now: %v)", now)
	}
	return s
}

// nodePrice is the price of one instance-hour: the config's, else the
// catalog's on-demand (or spot) price of the node's offering, converted to
// the node's currency; unknown (Known false) with the reason otherwise.
func nodePrice(cfg *agentconfig.Config) (catalog.Price, string) {
	n := cfg.Node
	if n.PricePerHour != nil {
		return catalog.Price{Known: true, Amount: money.Amount{Value: n.PricePerHour.Decimal, Currency: money.Currency(n.Currency)}}, "node.price_per_hour"
	}
	if n.Provider == "" || n.InstanceType == "" {
		return catalog.Price{}, "no node.price_per_hour, and no node.provider and node.instance_type to look it up"
	}
	cat, err := catalog.Default()
	if err != nil {
		return catalog.Price{}, err.Error()
	}
	for i := range cat.Offerings {
		o := &cat.Offerings[i]
		if o.Provider != n.Provider || o.InstanceType != n.InstanceType || (n.Region != "" && o.Region != n.Region) {
			continue
		}
		pr, what := o.OnDemand, "on-demand"
		if n.PricingModel == "spot" {
			pr, what = cat.SpotQuoteFor(o).Price, "spot"
		}
		if !pr.Known {
			continue
		}
		if n.Currency != "" && money.Currency(n.Currency) != pr.Currency {
			v, err := money.DefaultFX().Convert(pr.Value, pr.Currency, money.Currency(n.Currency))
			if err != nil {
				return catalog.Price{}, err.Error()
			}
			pr.Value, pr.Currency = v, money.Currency(n.Currency)
		}
		return pr, fmt.Sprintf("catalog %s price of %s %s in %s, source %s, %s", what, o.Provider, o.InstanceType, o.Region, pr.Source, pr.AsOf)
	}
	return catalog.Price{}, fmt.Sprintf("no catalog price for %s %s in region %q", n.Provider, n.InstanceType, n.Region)
}
