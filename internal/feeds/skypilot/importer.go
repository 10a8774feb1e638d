package skypilot

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// Format is the offline format: one cloud's vms.csv of SkyPilot's catalog.
// Every SkyPilot cloud's importer reads it, so --provider says whose it is.
const Format = "skypilot-csv"

// Version is the catalog schema version folder fetched: the one the
// embedded snapshot was built from (shared/data/skypilot-catalog/SOURCE.md).
const Version = "v9"

// DefaultEndpoint is where SkyPilot's hosted catalog is served: the
// catalogs folder of skypilot-org/skypilot-catalog on GitHub, read at its
// default branch; a cloud's file is <endpoint>/<Version>/<cloud>/vms.csv.
const DefaultEndpoint = "https://raw.githubusercontent.com/skypilot-org/skypilot-catalog/master/catalogs"

// DefaultMaxBody bounds one vms.csv where the request sets no limit: the
// largest GPU cloud file (Lambda's) is 75 kB, AWS's whole file 4.6 MB.
const DefaultMaxBody = 16 << 20

// Importer is SkyPilot's hosted catalog for one cloud that gpuscout prices
// from it (Lambda, Nebius, Vast, Fluidstack, Seeweb: clouds with no price
// API of their own that gpuscout reads), as a feeds.Importer. Its records
// name the cloud by SkyPilot's name (Result.Naming), so that the catalog
// keeps SkyPilot's accelerator and region names for exports.
type Importer struct {
	// File gives the cloud and how its fetcher writes the memory and region
	// columns (the embedded build's options for the same cloud); its Path,
	// Source and AsOf are not used.
	File File
}

// NewImporter returns the importer of one cloud's vms.csv.
func NewImporter(f File) *Importer { return &Importer{File: f} }

// Provider implements feeds.Importer: the cloud's catalog provider name,
// which is its SkyPilot cloud name for every cloud imported so.
func (im *Importer) Provider() string { return im.File.Cloud }

// Formats implements feeds.Importer.
func (im *Importer) Formats() []feeds.Format {
	return []feeds.Format{{Name: Format, PerProvider: true,
		Title: "SkyPilot catalog vms.csv of the cloud (" + DefaultEndpoint + "/" + Version + "/<cloud>/vms.csv); needs --as-of, the file carries no date"}}
}

// Parse implements feeds.Importer. With o.Region set, rows of other regions
// are left out. A vms.csv carries no date, so o.AsOf must give one (else the
// error wraps feeds.ErrNoDate).
func (im *Importer) Parse(format string, r io.Reader, o feeds.ParseOptions) (*feeds.Result, error) {
	if format != Format {
		return nil, fmt.Errorf("skypilot: format %q: want %q", format, Format)
	}
	if o.AsOf == "" {
		return nil, fmt.Errorf("skypilot: %w (a vms.csv has none)", feeds.ErrNoDate)
	}
	origin := o.Origin
	if origin == "" {
		origin = Format
	}
	var regions []string
	if o.Region != "" {
		regions = []string{o.Region}
	}
	return im.records(r, origin, o.Source, o.AsOf, regions)
}

func (im *Importer) records(r io.Reader, origin, source, asOf string, regions []string) (*feeds.Result, error) {
	recs, err := Parse(r)
	if err != nil {
		return nil, err
	}
	res := &feeds.Result{Naming: feeds.SkyPilotClouds}
	found := map[string]bool{}
	var have []string
	for _, rec := range recs {
		at := fmt.Sprintf("%s:%d", origin, rec.Line)
		region := rec.Region
		if im.File.StateCountryContinent {
			region, _ = VastRegion(rec.Region)
		}
		if !slices.Contains(have, region) {
			have = append(have, region)
		}
		if len(regions) > 0 && !slices.Contains(regions, region) {
			res.Leave(at, rec.InstanceType+" "+region, "not a region asked for ("+strings.Join(regions, ", ")+")")
			continue
		}
		found[region] = true
		im.File.add(res, rec, at, source, asOf)
	}
	var missing []string
	for _, r := range regions {
		if !found[r] {
			missing = append(missing, r)
		}
	}
	if len(missing) > 0 {
		sort.Strings(have)
		return nil, fmt.Errorf("skypilot: %s's catalog has no row in %s (its regions: %s)", im.File.Cloud, strings.Join(missing, ", "), strings.Join(have, "; "))
	}
	res.Lists = true // a cloud's whole vms.csv
	return res, nil
}

// Fetch implements feeds.Importer: one GET of the cloud's vms.csv. Its
// prices are cited as skypilot-<Version>-<cloud>@<fetch day>: SkyPilot's
// files carry no date, and the hosted catalog is refreshed by SkyPilot's
// fetchers, so the fetch day is the day the prices were seen.
func (im *Importer) Fetch(ctx context.Context, req feeds.FetchRequest) (*feeds.Result, error) {
	base := DefaultEndpoint
	if req.Endpoint != "" {
		base = strings.TrimRight(req.Endpoint, "/")
	}
	u, err := url.Parse(base + "/" + Version + "/" + url.PathEscape(im.File.Cloud) + "/vms.csv")
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("skypilot: endpoint %q is not an http(s) URL", req.Endpoint)
	}
	doer := req.Client()
	maxBody, _ := req.Limits(DefaultMaxBody, 1)
	now := req.Clock()
	day := now().UTC().Format("2006-01-02")
	if req.Progress != nil {
		req.Progress(0, 1, "SkyPilot catalog "+im.File.Cloud+"/vms.csv")
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	hr.Header.Set("Accept", "text/csv, text/plain")
	resp, err := doer.Do(hr)
	if err != nil {
		return nil, fmt.Errorf("skypilot: %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return nil, fmt.Errorf("skypilot: %s: HTTP %d: %s", u.Redacted(), resp.StatusCode, strings.TrimSpace(string(msg)))
	}
	res, err := im.records(feeds.LimitBody(resp.Body, maxBody), u.Host+u.Path, SourceID(im.File.Cloud, day), day, req.Regions)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	if req.Progress != nil {
		req.Progress(1, 1, fmt.Sprintf("SkyPilot catalog %s/vms.csv (%d offerings)", im.File.Cloud, len(res.Offerings)))
	}
	return res, nil
}

// SourceID is the source id of a cloud's prices fetched on day (YYYY-MM-DD).
func SourceID(cloud, day string) string { return "skypilot-" + Version + "-" + cloud + "@" + day }
