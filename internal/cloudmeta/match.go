package cloudmeta

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// Match is the catalog offering an identity names, or why none.
type Match struct {
	// Offering is provider/instance-type/region as the catalog spells it
	// (aws/p4d.24xlarge/us-east-1); "" when none matches.
	Offering string `json:"matched_offering"`
	// Reason says why nothing matched; "" when Offering is set.
	Reason string `json:"match_reason,omitempty"`
	// ref is the matched offering's reference (catalog spellings).
	ref catalog.OfferingRef
}

// MatchOffering finds the catalog offering of id: its provider (or an alias
// of it), instance type (case aside) and region (or an alias of it). An
// instance type the catalog has elsewhere only is no match, and the reason
// lists where the catalog has it.
func MatchOffering(cat *catalog.Catalog, id *Identity) Match {
	if id == nil {
		return Match{Reason: "no cloud identity: no metadata service answered and " + EnvOverride + " is not set"}
	}
	ref := catalog.OfferingRef{Provider: id.Provider, InstanceType: id.InstanceType}
	provider, _, err := cat.Resolve(ref)
	if err != nil {
		return Match{Reason: "not in the catalog: " + err.Error()}
	}
	want := map[string]bool{strings.ToLower(id.Region): true}
	for _, r := range cat.ResolveRegion(id.Region) {
		want[strings.ToLower(r)] = true
	}
	var regions []string
	for i := range cat.Offerings {
		o := &cat.Offerings[i]
		if o.Provider != provider || !strings.EqualFold(o.InstanceType, id.InstanceType) {
			continue
		}
		if want[strings.ToLower(o.Region)] {
			ref := catalog.OfferingRef{Provider: provider, InstanceType: o.InstanceType, Region: o.Region}
			return Match{Offering: ref.String(), ref: ref}
		}
		regions = append(regions, o.Region)
	}
	slices.Sort(regions)
	return Match{Reason: fmt.Sprintf("the catalog has %s/%s in %s, not in %s", provider, id.InstanceType, strings.Join(slices.Compact(regions), ", "), id.Region)}
}

// Placed is an identity with its catalog offering: the "cloud" object of a
// report (null in JSON when there is no identity).
type Placed struct {
	*Identity
	// MatchedOffering is provider/instance-type/region as the catalog
	// spells it; null when the catalog has no such offering.
	MatchedOffering *string `json:"matched_offering"`
	MatchReason     string  `json:"match_reason,omitempty"`
}

// Place matches id to the catalog; nil when id is nil. The placed identity
// (a copy) spells the provider, and on a match the instance type and
// region, as the catalog does (aliyun → alibaba, 华东1 → cn-hangzhou).
func Place(cat *catalog.Catalog, id *Identity) *Placed {
	if id == nil {
		return nil
	}
	m := MatchOffering(cat, id)
	c := *id
	if p := cat.Provider(c.Provider); p != nil {
		c.Provider = p.Name
	}
	p := &Placed{Identity: &c, MatchReason: m.Reason}
	if m.Offering != "" {
		p.MatchedOffering = &m.Offering
		c.Provider, c.InstanceType, c.Region = m.ref.Provider, m.ref.InstanceType, m.ref.Region
	}
	return p
}
