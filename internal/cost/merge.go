package cost

import (
	"maps"
	"slices"
)

// Field names a part of a Usage that a user can set, in the usage file's own
// words. Merge takes exactly the fields the user set on the command line.
type Field string

// The fields of a Usage that flags can set.
const (
	FieldInstances     Field = "instances"
	FieldHoursPerMonth Field = "hours_per_month"
	FieldDuration      Field = "duration"
	FieldHorizon       Field = "horizon"
	FieldDiscountRate  Field = "discount_rate"
	FieldLicense       Field = "license"
	FieldEgress        Field = "egress"
	FieldCredits       Field = "credits"
	FieldSpotBand      Field = "spot.band"
	FieldCheckpoint    Field = "spot.checkpoint"
	FieldRestart       Field = "spot.restart"
	FieldOutage        Field = "spot.outage"
	FieldStorage       Field = "storage" // a usage file's only
)

// Merge returns u (from a usage file, say) with the given fields taken from
// over (from flags): a field the user set always wins, whatever its value.
// Egress merges by path (a flag for one path keeps the file's other paths);
// credits given by flags replace the file's. Setting duration drops the
// file's hours_per_month and the other way round, since the two describe
// different loads (a job run back to back, or a steady monthly use). Neither
// u nor over is changed.
func (u Usage) Merge(over Usage, fields ...Field) Usage {
	out := u.clone()
	set := map[Field]bool{}
	for _, f := range fields {
		set[f] = true
	}
	if set[FieldDuration] && !set[FieldHoursPerMonth] {
		out.HoursPerMonth = 0
	}
	if set[FieldHoursPerMonth] && !set[FieldDuration] {
		out.DurationHours = 0
	}
	for _, f := range fields {
		switch f {
		case FieldInstances:
			out.Instances = over.Instances
		case FieldHoursPerMonth:
			out.HoursPerMonth = over.HoursPerMonth
		case FieldDuration:
			out.DurationHours = over.DurationHours
		case FieldHorizon:
			out.HorizonMonths = over.HorizonMonths
		case FieldDiscountRate:
			out.DiscountRate = over.DiscountRate
		case FieldLicense:
			out.License = over.License
		case FieldEgress:
			if out.Egress == nil {
				out.Egress = map[string]float64{}
			}
			maps.Copy(out.Egress, over.Egress)
		case FieldCredits:
			out.Credits = slices.Clone(over.Credits)
		case FieldSpotBand:
			out.Spot.Band = over.Spot.Band
		case FieldCheckpoint:
			out.Spot.CheckpointHours = over.Spot.CheckpointHours
		case FieldRestart:
			out.Spot.RestartHours = over.Spot.RestartHours
		case FieldOutage:
			out.Spot.OutageHours = over.Spot.OutageHours
		}
	}
	return out
}

// clone copies u deeply enough that changing the copy's maps and slices
// leaves u alone.
func (u Usage) clone() Usage {
	out := u
	out.Egress = maps.Clone(u.Egress)
	out.Storage = slices.Clone(u.Storage)
	out.Credits = slices.Clone(u.Credits)
	out.Promotions = slices.Clone(u.Promotions)
	return out
}
