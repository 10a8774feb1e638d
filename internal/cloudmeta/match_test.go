package cloudmeta

import (
	"strings"
	"testing"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

func TestMatchOffering(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name       string
		id         *Identity
		want       string // matched offering
		wantReason string // a part of the reason when none
	}{
		{"aws", &Identity{Provider: "aws", InstanceType: "p4d.24xlarge", Region: "us-east-1", Zone: "us-east-1a"}, "aws/p4d.24xlarge/us-east-1", ""},
		{"gcp", &Identity{Provider: "gcp", InstanceType: "a2-highgpu-8g", Region: "us-central1"}, "gcp/a2-highgpu-8g/us-central1", ""},
		{"azure, the catalog's spelling", &Identity{Provider: "azure", InstanceType: "standard_nc24ads_a100_v4", Region: "eastus"}, "azure/Standard_NC24ads_A100_v4/eastus", ""},
		{"alibaba", &Identity{Provider: "alibaba", InstanceType: "ecs.gn7i-c8g1.2xlarge", Region: "cn-hangzhou", Zone: "cn-hangzhou-i"}, "alibaba/ecs.gn7i-c8g1.2xlarge/cn-hangzhou", ""},
		{"alias of provider and region", &Identity{Provider: "aliyun", InstanceType: "ecs.gn7i-c8g1.2xlarge", Region: "华东1"}, "alibaba/ecs.gn7i-c8g1.2xlarge/cn-hangzhou", ""},
		{"tencent", &Identity{Provider: "tencent", InstanceType: "GN10X.2XLARGE40", Region: "ap-guangzhou", Zone: "ap-guangzhou-3"}, "tencent/GN10X.2XLARGE40/ap-guangzhou", ""},
		{"type elsewhere only", &Identity{Provider: "alibaba", InstanceType: "ecs.gn7s-c8g1.2xlarge", Region: "cn-shanghai"}, "",
			"the catalog has alibaba/ecs.gn7s-c8g1.2xlarge in cn-hangzhou, not in cn-shanghai"},
		{"type not in the catalog", &Identity{Provider: "aws", InstanceType: "t2.micro", Region: "us-west-2"}, "", `has no instance type "t2.micro"`},
		{"provider not in the catalog", &Identity{Provider: "oracle", InstanceType: "BM.GPU.H100.8", Region: "us-ashburn-1"}, "", `"oracle" is not a known provider`},
		{"no identity", nil, "", "no cloud identity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := MatchOffering(cat, tc.id)
			if got.Offering != tc.want {
				t.Errorf("Offering = %q, want %q (reason %q)", got.Offering, tc.want, got.Reason)
			}
			if tc.want != "" && got.Reason != "" {
				t.Errorf("Reason = %q on a match", got.Reason)
			}
			if tc.want == "" && !strings.Contains(got.Reason, tc.wantReason) {
				t.Errorf("Reason = %q, want it to contain %q", got.Reason, tc.wantReason)
			}
		})
	}
}

func TestPlace(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	if p := Place(cat, nil); p != nil {
		t.Errorf("Place(nil) = %+v, want nil", p)
	}
	p := Place(cat, &Identity{Provider: "gcp", InstanceType: "a2-highgpu-8g", Region: "us-central1"})
	if p.MatchedOffering == nil || *p.MatchedOffering != "gcp/a2-highgpu-8g/us-central1" || p.MatchReason != "" {
		t.Errorf("Place = %+v, want gcp/a2-highgpu-8g/us-central1", p)
	}
	p = Place(cat, &Identity{Provider: "gcp", InstanceType: "e2-medium", Region: "us-central1"})
	if p.MatchedOffering != nil || p.MatchReason == "" {
		t.Errorf("Place = %+v, want no offering and a reason", p)
	}
}

// TestPlaceSpelling: the placed identity uses the catalog's spellings; the
// given identity is left as it was.
func TestPlaceSpelling(t *testing.T) {
	cat, err := catalog.Default()
	if err != nil {
		t.Fatal(err)
	}
	id := &Identity{Provider: "aliyun", InstanceType: "ECS.GN7I-C8G1.2XLARGE", Region: "华东1"}
	p := Place(cat, id)
	if p.Provider != "alibaba" || p.InstanceType != "ecs.gn7i-c8g1.2xlarge" || p.Region != "cn-hangzhou" {
		t.Errorf("Place = %+v, want alibaba/ecs.gn7i-c8g1.2xlarge/cn-hangzhou", p.Identity)
	}
	if id.Provider != "aliyun" || id.Region != "华东1" {
		t.Errorf("Place changed its argument: %+v", id)
	}
	// No match: the provider is still spelt canonically.
	if p := Place(cat, &Identity{Provider: "阿里云", InstanceType: "ecs.nope", Region: "cn-hangzhou"}); p.Provider != "alibaba" || p.MatchedOffering != nil {
		t.Errorf("Place = %+v, want provider alibaba and no offering", p.Identity)
	}
}
