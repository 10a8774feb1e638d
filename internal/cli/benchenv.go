package cli

import (
	"context"
	"os"

	"github.com/gpuscout/gpuscout/internal/benchreport"
	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/cloudmeta"
	"github.com/gpuscout/gpuscout/internal/hostinfo"
)

// reportHost is the host part of a bench report, from the same reading
// `gpuscout env` shows (internal/hostinfo).
func reportHost(h *hostinfo.Host) benchreport.Host {
	if h == nil {
		return benchreport.Host{}
	}
	return benchreport.Host{Hostname: h.Hostname, CPUModel: h.CPUModel, Cores: h.LogicalCores, MemoryGiB: h.MemoryGiB}
}

// reportCloud is the cloud part of a bench report: the instance the
// metadata services (or GPUSCOUT_CLOUD) name, matched to the catalog
// offering; nil when no cloud answered. A bad GPUSCOUT_CLOUD is a usage
// error, as in `gpuscout env`.
func reportCloud(ctx context.Context, cat *catalog.Catalog) (*benchreport.Cloud, error) {
	res, err := cloudmeta.Identify(ctx, os.Getenv(cloudmeta.EnvOverride), envProbe.clients(), cloudmeta.DefaultTimeout)
	if err != nil {
		return nil, asUsage(err)
	}
	p := cloudmeta.Place(cat, res.Identity)
	if p == nil || p.Identity == nil {
		return nil, nil
	}
	c := &benchreport.Cloud{Provider: p.Provider, InstanceType: p.InstanceType, Region: p.Region, Zone: p.Zone}
	if p.MatchedOffering != nil {
		c.MatchedOffering = *p.MatchedOffering
	}
	return c, nil
}
