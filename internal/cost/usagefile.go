package cost

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/money"
	"github.com/gpuscout/gpuscout/internal/spot"
	"github.com/gpuscout/gpuscout/internal/yamlfields"
)

// Spec is a usage file: what to price and how it is used.
type Spec struct {
	Path     string
	GPU      string // NAME[:COUNT]
	Offering string // provider/instance[/region]
	Currency money.Currency
	Usage    Usage
	// Lines of currency-bearing entries, for messages about unconvertible currencies.
	CurrencyLines map[string]int
}

// LoadSpec reads and checks a usage file.
func LoadSpec(path string) (*Spec, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	b, err := io.ReadAll(io.LimitReader(fh, MaxUsageFileSize+1))
	if err != nil {
		return nil, err
	}
	return ParseSpec(path, b)
}

// MaxUsageFileSize is the largest usage file gpuscout reads: 64 KiB. A usage
// file describes one workload (a shape, its hours, a few credits and
// storage entries); the README's examples are under 1 KiB.
const MaxUsageFileSize = 64 << 10

// ParseSpec parses a usage file; every error names the file, line and field.
func ParseSpec(path string, b []byte) (*Spec, error) {
	if len(b) > MaxUsageFileSize {
		return nil, &yamlfields.Error{Path: path, Msg: fmt.Sprintf("the file is more than %d bytes (64 KiB), the most a usage file may be: it describes one workload", MaxUsageFileSize)}
	}
	r := &yamlfields.Reader{Path: path}
	top, err := r.Root(b, "a mapping such as 'gpu: A100:4' and 'duration: 7d'")
	if err != nil {
		return nil, err
	}
	s := &Spec{Path: path, CurrencyLines: map[string]int{}}
	u := &s.Usage
	dur := func(n *yaml.Node, field string) (float64, error) {
		v, err := r.Str(n, field)
		if err != nil {
			return 0, err
		}
		h, err := ParseDuration(v)
		if err != nil {
			return 0, r.Errf(n, field, "%v", err)
		}
		return h, nil
	}
	durNode := top
	cur := func(n *yaml.Node, field string) (money.Currency, error) {
		c, err := r.Currency(n, field)
		s.CurrencyLines[field+"@"+string(c)] = n.Line
		return c, err
	}
	// The line of each field, for the errors Validate finds after parsing.
	lines := map[Field]int{}
	at := func(prefix string, fields map[string]func(*yaml.Node) error) map[string]func(*yaml.Node) error {
		for k, fn := range fields {
			fields[k] = func(n *yaml.Node) error { lines[Field(prefix+k)] = n.Line; return fn(n) }
		}
		return fields
	}
	err = r.Mapping(top, "a usage file", at("", map[string]func(*yaml.Node) error{
		"gpu":      func(n *yaml.Node) (err error) { s.GPU, err = r.NonEmpty(n, "gpu"); return },
		"offering": func(n *yaml.Node) (err error) { s.Offering, err = r.NonEmpty(n, "offering"); return },
		"currency": func(n *yaml.Node) (err error) { s.Currency, err = r.Currency(n, "currency"); return },
		"instances": func(n *yaml.Node) error {
			v, err := r.Number(n, "instances", 1, 100000)
			u.Instances = int(v)
			if err == nil && float64(u.Instances) != v {
				err = r.Errf(n, "instances", "value %q is not a whole number", n.Value)
			}
			return err
		},
		"duration": func(n *yaml.Node) (err error) { durNode = n; u.DurationHours, err = dur(n, "duration"); return },
		"hours_per_month": func(n *yaml.Node) (err error) {
			u.HoursPerMonth, err = r.Number(n, "hours_per_month", 0, math.Inf(1))
			if err == nil && !(u.HoursPerMonth >= MinBillableHours && u.HoursPerMonth <= catalog.HoursPerMonth) {
				err = r.Errf(n, "hours_per_month", "value %s: %s", n.Value, HoursPerMonthRange)
			}
			return
		},
		"horizon": func(n *yaml.Node) error {
			h, err := dur(n, "horizon")
			u.HorizonMonths = h / catalog.HoursPerMonth
			return err
		},
		"discount_rate": func(n *yaml.Node) (err error) { u.DiscountRate, err = r.Fraction(n, "discount_rate", true); return },
		"license": func(n *yaml.Node) error {
			v, err := r.NonEmpty(n, "license")
			if err == nil && v != "linux" && v != "windows" {
				return r.Errf(n, "license", "value %q: want linux or windows", v)
			}
			u.License = v
			return err
		},
		"egress": func(n *yaml.Node) error {
			u.Egress = map[string]float64{}
			fields := map[string]func(*yaml.Node) error{}
			for _, p := range catalog.EgressPaths {
				p := p
				fields[p] = func(v *yaml.Node) (err error) { u.Egress[p], err = r.Number(v, "egress."+p, 0, 1e12); return }
				alt := strings.ReplaceAll(p, "-", "_")
				fields[alt] = fields[p]
			}
			return r.Mapping(n, "egress (GB per month by path)", fields)
		},
		"storage": func(n *yaml.Node) error {
			return r.Sequence(n, "storage", func(item *yaml.Node) error {
				var st Storage
				err := r.Mapping(item, "a storage entry", map[string]func(*yaml.Node) error{
					"kind": func(v *yaml.Node) error {
						k, err := r.NonEmpty(v, "storage.kind")
						if err == nil && k != "object" && k != "block" {
							return r.Errf(v, "storage.kind", "value %q: want object or block", k)
						}
						st.Kind = k
						return err
					},
					"gb_month": func(v *yaml.Node) (err error) { st.GBMonth, err = r.Number(v, "storage.gb_month", 0, 1e12); return },
					"price_per_gb_month": func(v *yaml.Node) (err error) {
						st.PricePerGB, err = r.Amount(v, "storage.price_per_gb_month", "a price per GB-month")
						return
					},
					"currency":  func(v *yaml.Node) (err error) { st.Currency, err = cur(v, "storage.currency"); return },
					"providers": func(v *yaml.Node) (err error) { st.ProviderScope, err = r.Strings(v, "storage.providers"); return },
				})
				if err == nil && (st.Kind == "" || st.PricePerGB.IsZero() && st.GBMonth > 0) {
					return r.Errf(item, "storage", "needs kind and price_per_gb_month (no storage price is in the catalog)")
				}
				if st.Currency == "" {
					st.Currency = money.USD
				}
				u.Storage = append(u.Storage, st)
				return err
			})
		},
		"credits": func(n *yaml.Node) error {
			return r.Sequence(n, "credits", func(item *yaml.Node) error {
				c := Credit{Name: "credit"}
				err := r.Mapping(item, "a credit", map[string]func(*yaml.Node) error{
					"name": func(v *yaml.Node) (err error) { c.Name, err = r.NonEmpty(v, "credits.name"); return },
					"amount": func(v *yaml.Node) (err error) {
						c.Amount, err = r.Amount(v, "credits.amount", "an amount such as 1000")
						return
					},
					"currency": func(v *yaml.Node) (err error) { c.Currency, err = cur(v, "credits.currency"); return },
					"expires": func(v *yaml.Node) error {
						h, err := dur(v, "credits.expires")
						c.ExpiresMonths = h / catalog.HoursPerMonth
						return err
					},
					"providers": func(v *yaml.Node) (err error) { c.Providers, err = r.Strings(v, "credits.providers"); return },
				})
				if err == nil && (!c.Amount.IsPositive() || c.Currency == "") {
					return r.Errf(item, "credits", "needs a positive amount and its currency")
				}
				u.Credits = append(u.Credits, c)
				return err
			})
		},
		"promotions": func(n *yaml.Node) error {
			return r.Sequence(n, "promotions", func(item *yaml.Node) error {
				var pr Promotion
				err := r.Mapping(item, "a promotion", map[string]func(*yaml.Node) error{
					"kind": func(v *yaml.Node) error {
						k, err := r.NonEmpty(v, "promotions.kind")
						if err == nil && k != PromoFirstMonth && k != PromoStudent && k != PromoVoucher {
							return r.Errf(v, "promotions.kind", "value %q: want %s, %s or %s", k, PromoFirstMonth, PromoStudent, PromoVoucher)
						}
						pr.Kind = k
						return err
					},
					"percent": func(v *yaml.Node) (err error) { pr.Percent, err = r.Fraction(v, "promotions.percent", true); return },
					"price_per_hour": func(v *yaml.Node) (err error) {
						pr.PricePerHour, err = r.Amount(v, "promotions.price_per_hour", "a price per hour")
						return
					},
					"daily_hours": func(v *yaml.Node) (err error) {
						pr.DailyHours, err = r.Number(v, "promotions.daily_hours", 0.01, 24)
						return
					},
					"months": func(v *yaml.Node) (err error) { pr.Months, err = r.Number(v, "promotions.months", 0.01, 120); return },
					"amount": func(v *yaml.Node) (err error) {
						pr.Amount, err = r.Amount(v, "promotions.amount", "an amount such as 100")
						return
					},
					"currency":  func(v *yaml.Node) (err error) { pr.Currency, err = cur(v, "promotions.currency"); return },
					"providers": func(v *yaml.Node) (err error) { pr.Providers, err = r.Strings(v, "promotions.providers"); return },
					"gpu":       func(v *yaml.Node) (err error) { pr.GPU, err = r.NonEmpty(v, "promotions.gpu"); return },
				})
				if err != nil {
					return err
				}
				switch {
				case pr.Kind == "":
					return r.Errf(item, "promotions.kind", "missing; want %s, %s or %s", PromoFirstMonth, PromoStudent, PromoVoucher)
				case pr.Kind == PromoFirstMonth && !pr.Percent.IsPositive():
					return r.Errf(item, "promotions.percent", "a first-month discount needs percent, e.g. 90%%")
				case pr.Kind == PromoStudent && (pr.DailyHours == 0 || pr.Currency == ""):
					return r.Errf(item, "promotions", "a student price needs price_per_hour, currency and daily_hours")
				case pr.Kind == PromoVoucher && (!pr.Amount.IsPositive() || pr.Currency == ""):
					return r.Errf(item, "promotions", "a voucher needs a positive amount and its currency")
				}
				u.Promotions = append(u.Promotions, pr)
				return nil
			})
		},
		"spot": func(n *yaml.Node) error {
			return r.Mapping(n, "spot", at("spot.", map[string]func(*yaml.Node) error{
				"band": func(v *yaml.Node) (err error) {
					if u.Spot.Band, err = r.NonEmpty(v, "spot.band"); err == nil {
						if _, _, _, berr := spot.BandHazard(u.Spot.Band); berr != nil {
							err = r.Errf(v, "spot.band", "%v", berr)
						}
					}
					return
				},
				"checkpoint": func(v *yaml.Node) (err error) { u.Spot.CheckpointHours, err = dur(v, "spot.checkpoint"); return },
				"restart":    func(v *yaml.Node) (err error) { u.Spot.RestartHours, err = dur(v, "spot.restart"); return },
				"outage":     func(v *yaml.Node) (err error) { u.Spot.OutageHours, err = dur(v, "spot.outage"); return },
			}))
		},
	}))
	if err != nil {
		return nil, err
	}
	if u.DurationHours > 0 && u.HoursPerMonth > 0 {
		return nil, r.Errf(durNode, "duration", "and hours_per_month both given: a usage is either a job run back to back (duration) or a steady load (hours_per_month); keep one")
	}
	// Validated again, with flags merged, by the caller.
	if _, err := u.Resolved(); err != nil {
		line := top.Line
		var fe *FieldError
		if errors.As(err, &fe) && lines[fe.Field] > 0 {
			line = lines[fe.Field]
		}
		return nil, &yamlfields.Error{Path: path, Line: line, Msg: err.Error()}
	}
	return s, nil
}
