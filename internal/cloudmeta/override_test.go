package cloudmeta

import (
	"context"
	"reflect"
	"strings"
	"testing"
)

func TestParseOverride(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    *Identity
		wantErr string
	}{
		{"aws/p4d.24xlarge/us-east-1", &Identity{Provider: "aws", InstanceType: "p4d.24xlarge", Region: "us-east-1", Source: EnvOverride}, ""},
		{" GCP/a3-highgpu-8g/us-central1/us-central1-a ", &Identity{Provider: "gcp", InstanceType: "a3-highgpu-8g", Region: "us-central1", Zone: "us-central1-a", Source: EnvOverride}, ""},
		{"aliyun/ecs.gn7i-c8g1.2xlarge/华东1", &Identity{Provider: "aliyun", InstanceType: "ecs.gn7i-c8g1.2xlarge", Region: "华东1", Source: EnvOverride}, ""},
		{"aws", nil, "1 parts"},
		{"aws/p4d.24xlarge", nil, "2 parts"},
		{"a/b/c/d/e", nil, "5 parts"},
		{"aws//us-east-1", nil, `instance-type "": empty`},
		{"aws/p4d 24xlarge/us-east-1", nil, `character ' '`},
		{"aws/p4d.24xlarge/us-east-1/", nil, `zone "": empty`},
	} {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseOverride(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), EnvOverride) || !strings.Contains(err.Error(), "provider/instance-type/region[/zone]") {
					t.Errorf("error %v, want one naming %s, the value, %q and the form", err, EnvOverride, tc.wantErr)
				}
				return
			}
			// Raw keeps the value as given.
			tc.want.Raw = map[string]string{EnvOverride: strings.TrimSpace(tc.in)}
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Errorf("ParseOverride(%q) = %+v, %v; want %+v", tc.in, got, err, tc.want)
			}
		})
	}
}

// TestIdentifyOverride: the override asks no service; a bad one is an error.
func TestIdentifyOverride(t *testing.T) {
	clients := []Client{AWS{BaseURL: hangingURL(t)}, GCP{BaseURL: hangingURL(t)}}
	r, err := Identify(context.Background(), "tencent/GN10X.2XLARGE40/ap-guangzhou", clients, 0)
	if err != nil {
		t.Fatal(err)
	}
	if r.Identity == nil || r.Identity.Provider != "tencent" || len(r.Attempts) != 2 || r.Attempts[0].Status != StatusSkipped {
		t.Errorf("Identify = %+v", r)
	}
	if _, err := Identify(context.Background(), "tencent", clients, 0); err == nil {
		t.Error("a bad override gave no error")
	}
}
