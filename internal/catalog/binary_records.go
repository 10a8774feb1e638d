package catalog

import "github.com/gpuscout/gpuscout/internal/money"

// The records of the binary catalog, field by field: each type's writer
// and reader side by side, in the same order. A field added to one of
// these types needs a line in both; TestBinaryRoundTripEveryField fills
// every field by reflection and fails until it has them.

// figures lists a GPU's spec figures in their binary order.
func (g *GPU) figurePtrs() [10]*Figure {
	return [10]*Figure{&g.MemoryGiB, &g.MemoryClassGB, &g.MemoryBandwidth, &g.FP32, &g.TF32,
		&g.BF16, &g.FP16, &g.FP8, &g.InterconnectBW, &g.TDP}
}

const (
	figKnown       = 1
	figUnsupported = 2
)

func (w *binWriter) gpu(g *GPU) {
	w.str(g.Name)
	w.str(g.Vendor)
	w.str(g.Family)
	w.str(g.FormFactor)
	w.bool(g.Generic)
	w.strs(g.Aliases)
	for _, f := range g.figurePtrs() {
		var flags byte
		if f.Known {
			flags |= figKnown
		}
		if f.Unsupported {
			flags |= figUnsupported
		}
		w.b = append(w.b, flags)
		w.f64(f.Value)
		w.str(f.Source)
	}
	w.str(g.Interconnect)
	w.str(g.BoardLink)
	w.str(g.Source)
	w.count(len(g.Sources), g.Sources == nil)
	for _, k := range sortedKeys(g.Sources) {
		w.str(k)
		w.str(g.Sources[k])
	}
	w.str(g.Notes)
	w.bool(g.Estimate != nil)
	if e := g.Estimate; e != nil {
		w.str(e.From)
		w.f64(e.Uncertainty)
		w.str(e.Source)
		w.str(e.Basis)
		w.gpuRef(e.FromGPU)
	}
}

func (r *binReader) gpu(g *GPU) {
	g.Name = r.str()
	g.Vendor = r.str()
	g.Family = r.str()
	g.FormFactor = r.str()
	g.Generic = r.bool()
	g.Aliases = r.strs()
	for _, f := range g.figurePtrs() {
		flags := r.byte()
		if flags&^(figKnown|figUnsupported) != 0 {
			r.fail("figure flags %#x", flags)
		}
		f.Known, f.Unsupported = flags&figKnown != 0, flags&figUnsupported != 0
		f.Value = r.f64()
		f.Source = r.str()
	}
	g.Interconnect = r.str()
	g.BoardLink = r.str()
	g.Source = r.str()
	if n := r.count(); n >= 0 {
		g.Sources = make(map[string]string, n)
		for range n {
			k := r.str()
			g.Sources[k] = r.str()
		}
	}
	g.Notes = r.str()
	if r.bool() {
		g.Estimate = &GPUEstimate{From: r.str(), Uncertainty: r.f64(), Source: r.str(), Basis: r.str(), FromGPU: r.gpuRef()}
	}
}

func (w *binWriter) provider(p *Provider) {
	w.str(p.Name)
	w.str(p.DisplayName)
	w.strs(p.Aliases)
	w.str(p.Currency)
	w.str(p.Billing)
	w.str(p.BillingSource)
	w.f64(p.BillingMinimumSeconds)
	w.str(p.PriceNote)
	w.count(len(p.Schemes), p.Schemes == nil)
	for _, s := range p.Schemes {
		w.str(s.Model)
		w.str(s.Name)
		w.strs(s.Terms)
		w.strs(s.Payments)
		w.strs(s.Classes)
		w.bool(s.RecurringInAdvance)
		w.str(s.Notes)
	}
	w.str(p.SchemesSource)
	w.count(len(p.Regions), p.Regions == nil)
	for _, reg := range p.Regions {
		w.str(reg.Name)
		w.strs(reg.Aliases)
		w.bool(reg.China)
	}
	w.bool(p.Ecosystem != nil)
	if e := p.Ecosystem; e != nil {
		w.str(e.Images)
		w.str(e.Monitoring)
		w.str(e.Source)
	}
	w.str(p.SkyPilotCloud)
	w.bool(p.SkyPilot != nil)
	if s := p.SkyPilot; s != nil {
		w.bool(s.NoMultiNode)
		w.bool(s.NoSpot)
		w.bool(s.NoOpenPorts)
		w.bool(s.NoChinaRegions)
		w.str(s.Source)
	}
	w.count(len(p.Risks), p.Risks == nil)
	for _, k := range p.Risks {
		w.str(k.Model)
		w.strs(k.Instances)
		w.str(k.Text)
		w.str(k.Source)
	}
	w.bool(p.Marketplace)
	w.str(p.MarketplaceSource)
}

func (r *binReader) provider(p *Provider) {
	p.Name = r.str()
	p.DisplayName = r.str()
	p.Aliases = r.strs()
	p.Currency = r.str()
	p.Billing = r.str()
	p.BillingSource = r.str()
	p.BillingMinimumSeconds = r.f64()
	p.PriceNote = r.str()
	if n := r.count(); n >= 0 {
		p.Schemes = make([]Scheme, n)
		for i := range p.Schemes {
			s := &p.Schemes[i]
			s.Model = r.str()
			s.Name = r.str()
			s.Terms = r.strs()
			s.Payments = r.strs()
			s.Classes = r.strs()
			s.RecurringInAdvance = r.bool()
			s.Notes = r.str()
		}
	}
	p.SchemesSource = r.str()
	if n := r.count(); n >= 0 {
		p.Regions = make([]Region, n)
		for i := range p.Regions {
			reg := &p.Regions[i]
			reg.Name = r.str()
			reg.Aliases = r.strs()
			reg.China = r.bool()
		}
	}
	if r.bool() {
		p.Ecosystem = &Ecosystem{Images: r.str(), Monitoring: r.str(), Source: r.str()}
	}
	p.SkyPilotCloud = r.str()
	if r.bool() {
		p.SkyPilot = &SkyPilotLimits{NoMultiNode: r.bool(), NoSpot: r.bool(), NoOpenPorts: r.bool(), NoChinaRegions: r.bool(), Source: r.str()}
	}
	if n := r.count(); n >= 0 {
		p.Risks = make([]ProviderRisk, n)
		for i := range p.Risks {
			k := &p.Risks[i]
			k.Model = r.str()
			k.Instances = r.strs()
			k.Text = r.str()
			k.Source = r.str()
		}
	}
	p.Marketplace = r.bool()
	p.MarketplaceSource = r.str()
}

func (w *binWriter) source(s *Source) {
	w.str(s.ID)
	w.str(s.Title)
	w.str(s.URL)
	w.str(s.File)
	w.str(s.Commit)
	w.str(s.License)
	w.str(s.AsOf)
	w.str(s.Notes)
}

func (r *binReader) source(s *Source) {
	s.ID = r.str()
	s.Title = r.str()
	s.URL = r.str()
	s.File = r.str()
	s.Commit = r.str()
	s.License = r.str()
	s.AsOf = r.str()
	s.Notes = r.str()
}

func (w *binWriter) optF64(p *float64) {
	w.bool(p != nil)
	if p != nil {
		w.f64(*p)
	}
}

func (r *binReader) optF64() *float64 {
	if !r.bool() {
		return nil
	}
	v := r.f64()
	return &v
}

func (w *binWriter) egress(t *EgressTable) {
	w.str(t.Provider)
	w.str(t.Group)
	w.strs(t.Regions)
	w.strs(t.RegionPrefixes)
	w.str(t.Unit)
	w.str(string(t.Currency))
	w.str(t.Source)
	w.str(t.Notes)
	w.count(len(t.Paths), t.Paths == nil)
	for _, k := range sortedKeys(t.Paths) {
		p := t.Paths[k]
		w.str(k)
		w.bool(p.BothDirections)
		w.count(len(p.Tiers), p.Tiers == nil)
		for _, tier := range p.Tiers {
			w.optF64(tier.UpTo)
			w.dec(tier.Price)
			w.str(tier.Source)
		}
		w.optF64(p.KnownUpTo)
		w.str(p.Source)
	}
	w.bool(t.Free != nil)
	if f := t.Free; f != nil {
		w.f64(f.Amount)
		w.strs(f.Paths)
		w.str(f.Source)
	}
}

func (r *binReader) egress(t *EgressTable) {
	t.Provider = r.str()
	t.Group = r.str()
	t.Regions = r.strs()
	t.RegionPrefixes = r.strs()
	t.Unit = r.str()
	t.Currency = money.Currency(r.str())
	t.Source = r.str()
	t.Notes = r.str()
	if n := r.count(); n >= 0 {
		t.Paths = make(map[string]EgressPath, n)
		for range n {
			k := r.str()
			var p EgressPath
			p.BothDirections = r.bool()
			if m := r.count(); m >= 0 {
				p.Tiers = make([]EgressTier, m)
				for i := range p.Tiers {
					p.Tiers[i] = EgressTier{UpTo: r.optF64(), Price: r.dec(), Source: r.str()}
				}
			}
			p.KnownUpTo = r.optF64()
			p.Source = r.str()
			t.Paths[k] = p
		}
	}
	if r.bool() {
		t.Free = &EgressAllowance{Amount: r.f64(), Paths: r.strs(), Source: r.str()}
	}
}

func (w *binWriter) license(l *LicenseSurcharge) {
	w.str(l.Provider)
	w.str(l.InstanceType)
	w.str(l.Region)
	w.str(l.License)
	w.dec(l.PerHour)
	w.str(string(l.Currency))
	w.str(l.Source)
	w.str(l.AsOf)
	w.str(l.Notes)
	w.str(l.BringYourOwn)
}

func (r *binReader) license(l *LicenseSurcharge) {
	l.Provider = r.str()
	l.InstanceType = r.str()
	l.Region = r.str()
	l.License = r.str()
	l.PerHour = r.dec()
	l.Currency = money.Currency(r.str())
	l.Source = r.str()
	l.AsOf = r.str()
	l.Notes = r.str()
	l.BringYourOwn = r.str()
}

func (w *binWriter) price(p *Price) {
	w.bool(p.Known)
	w.dec(p.Value)
	w.str(string(p.Currency))
	w.str(p.Source)
	w.str(p.AsOf)
	w.str(p.Note)
}

func (r *binReader) price(p *Price) {
	p.Known = r.bool()
	p.Value = r.dec()
	p.Currency = money.Currency(r.str())
	p.Source = r.str()
	p.AsOf = r.str()
	p.Note = r.str()
}

func (w *binWriter) offering(o *Offering) {
	w.str(o.Provider)
	w.str(o.InstanceType)
	w.str(o.Region)
	w.str(o.Zone)
	w.bool(o.China)
	w.gpuRef(o.GPU)
	w.f64(o.GPUCount)
	w.f64(o.GPUMemoryGiB)
	w.f64(o.VCPUs)
	w.f64(o.MemoryGiB)
	w.f64(o.LocalDiskGB)
	w.str(o.Interconnect)
	w.f64(o.NetworkGbps)
	w.str(o.NetworkKind)
	w.str(o.NetworkSource)
	w.str(o.Arch)
	w.str(o.SpecSource)
	w.price(&o.OnDemand)
	w.price(&o.Spot)
	w.str(o.Retired)
	w.str(o.RetiredSource)
	w.str(o.SkyPilotAccelerator)
	w.str(o.SkyPilotRegion)
	w.count(len(o.Steps), o.Steps == nil)
	for _, s := range o.Steps {
		w.f64(s.FromHours)
		w.dec(s.Amount)
	}
}

func (r *binReader) offering(o *Offering) {
	o.Provider = r.str()
	o.InstanceType = r.str()
	o.Region = r.str()
	o.Zone = r.str()
	o.China = r.bool()
	o.GPU = r.gpuRef()
	o.GPUCount = r.f64()
	o.GPUMemoryGiB = r.f64()
	o.VCPUs = r.f64()
	o.MemoryGiB = r.f64()
	o.LocalDiskGB = r.f64()
	o.Interconnect = r.str()
	o.NetworkGbps = r.f64()
	o.NetworkKind = r.str()
	o.NetworkSource = r.str()
	o.Arch = r.str()
	o.SpecSource = r.str()
	r.price(&o.OnDemand)
	r.price(&o.Spot)
	o.Retired = r.str()
	o.RetiredSource = r.str()
	o.SkyPilotAccelerator = r.str()
	o.SkyPilotRegion = r.str()
	if n := r.count(); n >= 0 {
		o.Steps = make([]PriceStep, n)
		for i := range o.Steps {
			o.Steps[i] = PriceStep{FromHours: r.f64(), Amount: r.dec()}
		}
	}
}

func (w *binWriter) commitment(c *Commitment) {
	w.str(c.Provider)
	w.str(c.InstanceType)
	w.str(c.Region)
	w.str(c.Model)
	w.str(c.Term)
	w.str(c.Payment)
	w.str(c.Class)
	w.dec(c.Upfront)
	w.dec(c.Hourly)
	w.dec(c.Monthly)
	w.str(string(c.Currency))
	w.str(c.Source)
	w.str(c.AsOf)
	w.str(c.Note)
}

func (r *binReader) commitment(c *Commitment) {
	c.Provider = r.str()
	c.InstanceType = r.str()
	c.Region = r.str()
	c.Model = r.str()
	c.Term = r.str()
	c.Payment = r.str()
	c.Class = r.str()
	c.Upfront = r.dec()
	c.Hourly = r.dec()
	c.Monthly = r.dec()
	c.Currency = money.Currency(r.str())
	c.Source = r.str()
	c.AsOf = r.str()
	c.Note = r.str()
}

func (w *binWriter) spotBand(b *SpotBand) {
	w.str(b.Provider)
	w.str(b.InstanceType)
	w.str(b.Region)
	w.str(b.Label)
	w.f64(b.Low)
	w.f64(b.High)
	w.f64(b.SavingsPct)
	w.str(b.Source)
	w.str(b.AsOf)
}

func (r *binReader) spotBand(b *SpotBand) {
	b.Provider = r.str()
	b.InstanceType = r.str()
	b.Region = r.str()
	b.Label = r.str()
	b.Low = r.f64()
	b.High = r.f64()
	b.SavingsPct = r.f64()
	b.Source = r.str()
	b.AsOf = r.str()
}

func (w *binWriter) leftOut(l *LeftOutType) {
	w.str(l.Provider)
	w.str(l.InstanceType)
	w.strs(l.Regions)
	w.str(l.Source)
	w.str(l.Reason)
}

func (r *binReader) leftOut(l *LeftOutType) {
	l.Provider = r.str()
	l.InstanceType = r.str()
	l.Regions = r.strs()
	l.Source = r.str()
	l.Reason = r.str()
}
