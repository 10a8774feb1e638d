package catalog

import (
	"strings"
	"testing"
)

// TestEgressTableLookupAndSources: a region gets its own group's table or
// none; each path names the sources of its prices.
func TestEgressTableLookupAndSources(t *testing.T) {
	c := mustDefault(t)
	tests := []struct {
		provider, region, group string // group "": no table
		path, source            string
	}{
		{"aws", "us-east-1", "US, Canada, EU", PathInternet, "infracost-aws-transfer@2024-09, aws-free-tier-transfer"},
		{"aws", "eu-north-1", "US, Canada, EU", PathCrossZone, "infracost-aws-transfer@2024-09"},
		{"aws", "ap-northeast-1", "Asia Pacific (Tokyo, Osaka)", PathInternet, "infracost-aws-transfer@2024-09, aws-free-tier-transfer"},
		{"aws", "cn-north-1", "", "", ""},
		{"aws", "ap-southeast-3", "", "", ""},
		{"gcp", "europe-west4", "europe-west4, asia-southeast1", PathCrossZone, "gcp-vpc-network-pricing"},
		{"gcp", "us-central1", "us-central1, us-east4", PathInternet, "cyclenerd-gcp@2026-07-30"},
		{"azure", "eastus", "Zone 1 (North America, Europe)", PathInternet, "azure-bandwidth-summaries"},
		{"alibaba", "cn-hangzhou", "", "", ""},
		{"aws", "", "", "", ""},
	}
	for _, tt := range tests {
		tab := c.Egress(tt.provider, tt.region)
		if tt.group == "" {
			if tab != nil {
				t.Errorf("%s %q: table %q, want none (no sourced prices)", tt.provider, tt.region, tab.Group)
			}
			continue
		}
		if tab == nil || tab.Group != tt.group {
			t.Errorf("%s %s: table %v, want %q", tt.provider, tt.region, tab, tt.group)
			continue
		}
		if got := tab.PathSource(tt.path); got != tt.source {
			t.Errorf("%s %s %s: source %q, want %q", tt.provider, tt.region, tt.path, got, tt.source)
		}
	}
}

// TestEgressTablesNeedRegionsAndKnownSources: a table without regions, a
// region in two tables or an unknown path source is refused.
func TestEgressTablesNeedRegionsAndKnownSources(t *testing.T) {
	base := Embedded()
	for name, tc := range map[string]struct{ yaml, want string }{
		"no regions": {"- {provider: aws, unit: GB, currency: USD, source: infracost-aws-transfer@2024-09, paths: {same-zone: {tiers: [{price: 0}]}}}\n", "lists no regions"},
		"twice": {"- {provider: aws, regions: [us-east-1], unit: GB, currency: USD, source: infracost-aws-transfer@2024-09, paths: {same-zone: {tiers: [{price: 0}]}}}\n" +
			"- {provider: aws, regions: [us-east-1], unit: GB, currency: USD, source: infracost-aws-transfer@2024-09, paths: {same-zone: {tiers: [{price: 0}]}}}\n", "in two tables"},
		"path source": {"- {provider: aws, regions: [us-east-1], unit: GB, currency: USD, source: infracost-aws-transfer@2024-09, paths: {same-zone: {source: nowhere, tiers: [{price: 0}]}}}\n", `unknown source "nowhere"`},
		"tier source": {"- {provider: aws, regions: [us-east-1], unit: GB, currency: USD, source: infracost-aws-transfer@2024-09, paths: {internet: {tiers: [{price: 0, source: nowhere}]}}}\n", `unknown source "nowhere"`},
	} {
		f := base
		f.Egress = []byte(tc.yaml)
		_, err := ParseSpecs(f)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want it to mention %q", name, err, tc.want)
		}
	}
}
