package feeds

import (
	"slices"
)

// Dates returns the distinct as-of dates of the result's prices, commitment
// prices, spot bands and licence prices, sorted (oldest first).
func (r *Result) Dates() []string {
	seen := map[string]bool{}
	add := func(d string) {
		if d != "" {
			seen[d] = true
		}
	}
	for i := range r.Offerings {
		o := &r.Offerings[i]
		if o.OnDemand.Known {
			add(o.OnDemand.AsOf)
		}
		if o.Spot.Known {
			add(o.Spot.AsOf)
		}
	}
	for i := range r.Commitments {
		add(r.Commitments[i].AsOf)
	}
	for i := range r.SpotBands {
		add(r.SpotBands[i].AsOf)
	}
	for i := range r.Licenses {
		add(r.Licenses[i].AsOf)
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}

// CiteByDate cites every record that cites src by src@DATE instead, DATE
// being the record's own as-of date: a downloaded file's prices are cited by
// the file and the date of its data ("file:offer.json@2018-05-04"), known
// only once the file is parsed. A machine fact an offering cites src for
// (SkyPilot's specs) takes the date of the offering's price, else the
// result's latest date.
func (r *Result) CiteByDate(src string) {
	latest := ""
	if ds := r.Dates(); len(ds) > 0 {
		latest = ds[len(ds)-1]
	}
	cite := func(id *string, asOf string) {
		if *id == src && asOf != "" {
			*id = src + "@" + asOf
		}
	}
	for i := range r.Offerings {
		o := &r.Offerings[i]
		cite(&o.OnDemand.Source, o.OnDemand.AsOf)
		cite(&o.Spot.Source, o.Spot.AsOf)
		day := latest
		switch {
		case o.OnDemand.Known && o.OnDemand.AsOf != "":
			day = o.OnDemand.AsOf
		case o.Spot.Known && o.Spot.AsOf != "":
			day = o.Spot.AsOf
		}
		for _, id := range []*string{&o.SpecSource, &o.NetworkSource, &o.RetiredSource} {
			cite(id, day)
		}
	}
	for i := range r.Commitments {
		cite(&r.Commitments[i].Source, r.Commitments[i].AsOf)
	}
	for i := range r.SpotBands {
		cite(&r.SpotBands[i].Source, r.SpotBands[i].AsOf)
	}
	for i := range r.Licenses {
		cite(&r.Licenses[i].Source, r.Licenses[i].AsOf)
	}
	for i := range r.Specs {
		for _, id := range []*string{&r.Specs[i].SpecSource, &r.Specs[i].NetworkSource, &r.Specs[i].RetiredSource} {
			cite(id, latest)
		}
	}
}
