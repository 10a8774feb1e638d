package tencentcvm

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"

	"github.com/gpuscout/gpuscout/internal/feeds"
)

// FormatExamples is the shared recorded-examples file: answers keyed by API
// name, each with the example's title ({"DescribeZoneInstanceConfigInfos":
// [{"example", "output"}], "InquiryPriceRunInstances": [...]}).
const FormatExamples = "tencent-cvm-examples"

// File is one saved answer file a Feed reads, with its format.
type File struct {
	Path   string // under the shared folder
	Format string // FormatZoneConfig, FormatInquiry or FormatExamples
}

// Feed reads saved CVM answers as a feeds.Source, so the conformance suite
// covers the parsers on real records.
type Feed struct {
	Files  []File
	Source string // source id
	AsOf   string
}

// NewFeed returns the feed.
func NewFeed(source, asOf string, files ...File) *Feed {
	return &Feed{Files: files, Source: source, AsOf: asOf}
}

// ID implements feeds.Source.
func (f *Feed) ID() string { return "tencentcvm" }

// Describe implements feeds.Source.
func (f *Feed) Describe() feeds.Description {
	d := feeds.Description{
		Title:  "Tencent Cloud CVM price API answers (DescribeZoneInstanceConfigInfos, InquiryPriceRunInstances), saved",
		Yields: "GPU offerings per zone with pay-as-you-go and spot prices (CNY); prepaid 1-month, 1-year and 3-year subscriptions per region",
	}
	for _, fl := range f.Files {
		d.Reads = append(d.Reads, feeds.Input{Root: feeds.Shared, Path: fl.Path, Cites: []string{f.Source}})
	}
	return d
}

// Read implements feeds.Source.
func (f *Feed) Read(in feeds.Inputs) (*feeds.Result, error) {
	c := newCollector(f.Source, f.AsOf)
	for _, fl := range f.Files {
		_, err := feeds.ParseFile(in, feeds.Shared, fl.Path, func(r io.Reader) (struct{}, error) {
			switch fl.Format {
			case FormatZoneConfig:
				return struct{}{}, c.zoneConfig(r, fl.Path, "", true)
			case FormatInquiry:
				return struct{}{}, c.inquiries(r, fl.Path, "")
			case FormatExamples:
				return struct{}{}, c.examples(r, fl.Path)
			}
			return struct{}{}, fmt.Errorf("format %q; want %s, %s or %s", fl.Format, FormatZoneConfig, FormatInquiry, FormatExamples)
		})
		if err != nil {
			return nil, err
		}
	}
	return c.result(), nil
}

// examples reads the recorded-examples file. Its InquiryPriceRunInstances
// answers were recorded without their requests, so what they price is
// unknown: each is left out, saying so.
func (c *collector) examples(r io.Reader, path string) error {
	var ex map[string][]struct {
		Example string          `json:"example"`
		Output  json.RawMessage `json:"output"`
	}
	if err := json.NewDecoder(r).Decode(&ex); err != nil {
		return malformed(err)
	}
	for api, list := range ex {
		for i, e := range list {
			origin := path + "#" + api + "/" + strconv.Itoa(i)
			switch api {
			case "DescribeZoneInstanceConfigInfos":
				if err := c.zoneConfig(bytes.NewReader(e.Output), origin, "", false); err != nil {
					return fmt.Errorf("%s: %w", origin, err)
				}
			case "InquiryPriceRunInstances":
				c.res.Leave(origin, "example "+e.Example, "the answer was recorded without its request: the instance type, zone and charge type it prices are unknown")
			default:
				c.res.Leave(origin, "example "+e.Example, "API "+api+" is not one the importer reads")
			}
		}
	}
	return nil
}
