package pricefile

import (
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// offeringIndex finds a catalog's offerings by provider and instance type and
// resolves region names, so that applying a file costs time in proportion to
// its entries, not entries times offerings (a 2 MiB file took 3 s that way,
// a 10 MiB one minutes). It keeps indices, not pointers: adding an offering
// may move the slice.
type offeringIndex struct {
	c          *catalog.Catalog
	byType     map[string][]int // provider + "\x00" + instance type
	byProvider map[string][]int
	regions    map[string][]string // c.ResolveRegion, cached by name
	known      map[string]bool     // lower-cased regions of the offerings
	// byRegion holds each provider's regions: its offerings' and those
	// providers.yaml lists.
	byRegion map[string]map[string]bool
}

func newOfferingIndex(c *catalog.Catalog) *offeringIndex {
	x := &offeringIndex{c: c, byType: map[string][]int{}, byProvider: map[string][]int{}, regions: map[string][]string{}, known: map[string]bool{},
		byRegion: map[string]map[string]bool{}}
	for i := range c.Offerings {
		x.put(i)
	}
	for _, p := range c.Providers {
		for _, r := range p.Regions {
			x.addRegion(p.Name, r.Name)
		}
	}
	return x
}

func (x *offeringIndex) addRegion(provider, region string) {
	if region == "" {
		return
	}
	if x.byRegion[provider] == nil {
		x.byRegion[provider] = map[string]bool{}
	}
	x.byRegion[provider][region] = true
}

func (x *offeringIndex) put(i int) {
	o := &x.c.Offerings[i]
	x.byType[o.Provider+"\x00"+o.InstanceType] = append(x.byType[o.Provider+"\x00"+o.InstanceType], i)
	x.byProvider[o.Provider] = append(x.byProvider[o.Provider], i)
	x.addRegion(o.Provider, o.Region)
	if r := strings.ToLower(o.Region); !x.known[r] {
		x.known[r] = true
		clear(x.regions) // a new region may resolve names that did not before
	}
}

// add appends o to the catalog and indexes it.
func (x *offeringIndex) add(o catalog.Offering) {
	x.c.Offerings = append(x.c.Offerings, o)
	x.put(len(x.c.Offerings) - 1)
}

// resolveRegion is c.ResolveRegion, remembered.
func (x *offeringIndex) resolveRegion(name string) []string {
	rs, ok := x.regions[name]
	if !ok {
		rs = x.c.ResolveRegion(name)
		x.regions[name] = rs
	}
	return rs
}

// match lists the offerings of provider with the instance type, region and
// zone, each where given, in catalog order.
func (x *offeringIndex) match(provider, typ, region, zone string) []*catalog.Offering {
	list := x.byProvider[provider]
	if typ != "" {
		list = x.byType[provider+"\x00"+typ]
	}
	var out []*catalog.Offering
	for _, i := range list {
		o := &x.c.Offerings[i]
		if (region != "" && o.Region != region) || (zone != "" && o.Zone != zone) {
			continue
		}
		out = append(out, o)
	}
	return out
}
