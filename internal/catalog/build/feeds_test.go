package build

import (
	"bytes"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gpuscout/gpuscout/internal/catalog"
	"github.com/gpuscout/gpuscout/internal/feeds"
	"github.com/gpuscout/gpuscout/internal/feeds/awsondemand"
	"github.com/gpuscout/gpuscout/internal/feeds/curated"
	"github.com/gpuscout/gpuscout/internal/feeds/skypilot"
)

const lambdaCSV = "InstanceType,AcceleratorName,AcceleratorCount,vCPUs,MemoryGiB,Price,Region,GpuInfo,SpotPrice\r\n" +
	`gpu_1x_a100_sxm4,A100,1.0,30.0,200.0,1.99,us-east-1,"{'Gpus': [{'Name': 'A100', 'Manufacturer': 'NVIDIA', 'Count': 1.0, 'MemoryInfo': {'SizeInMiB': 40960}}], 'TotalGpuMemoryInMiB': 40960}",` + "\r\n"

const curatedYAML = "provider: aws\nspec_source: aws-ec2-accelerated\ninstances:\n  - {type: p4d.24xlarge, gpu: A100-SXM4-40GB, gpu_count: 8, vcpus: 96, memory_gib: 1152}\n"

// specsWith returns the embedded specs with providers.yaml edited by replace.
func specsWith(t *testing.T, old, new string) *catalog.Catalog {
	t.Helper()
	f := catalog.Embedded()
	if old != "" {
		if !bytes.Contains(f.Providers, []byte(old)) {
			t.Fatalf("providers.yaml has no %q", old)
		}
		f.Providers = bytes.Replace(f.Providers, []byte(old), []byte(new), 1)
	}
	c, err := catalog.ParseSpecs(f)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// A SkyPilot cloud is mapped to a provider by providers.yaml (skypilot_cloud,
// then name or alias), not by code; an unmapped cloud is an error naming it.
func TestSkyPilotCloudsFromProviderData(t *testing.T) {
	in := feeds.Inputs{Shared: fstest.MapFS{"x/vms.csv": {Data: []byte(lambdaCSV)}}, Curated: fstest.MapFS{"aws.yaml": {Data: []byte(curatedYAML)}}}
	srcs := func(cloud string) []feeds.Source {
		return []feeds.Source{curated.New("*.yaml"),
			skypilot.New(skypilot.File{Path: "x/vms.csv", Cloud: cloud, Source: "skypilot-v9@2c3d7ea7", AsOf: "2026-07-09"})}
	}
	for _, tc := range []struct {
		name, cloud, old, new string
		want                  string // provider, or error text
	}{
		{"name", "lambda", "", "", "lambda"},
		{"alias", "lambdalabs", "", "", "lambda"},
		{"skypilot_cloud", "lambda-gpu-cloud", "skypilot_cloud: lambda  #", "skypilot_cloud: lambda-gpu-cloud  #", "lambda"},
		{"unknown", "mars", "", "", `SkyPilot cloud "mars" is no provider's`},
	} {
		snap, _, err := BuildFrom(specsWith(t, tc.old, tc.new), srcs(tc.cloud), in)
		switch {
		case err != nil:
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
			}
		case len(snap.Offerings) != 1 || snap.Offerings[0].Provider != tc.want:
			t.Errorf("%s: offerings %+v, want one of provider %s", tc.name, snap.Offerings, tc.want)
		}
	}
}

// A price row without a curated spec is left out, reported and kept in the
// snapshot's left-out types; a known price citing an unlisted source is an error.
func TestPriceRowsJoinCuratedSpecs(t *testing.T) {
	csv := "region,instance_type,ondemand_price_per_hour,currency,generated_at\n" +
		"us-east-1,p4d.24xlarge,21.957642,USD,2026-07-20T13:44:30Z\n" +
		"us-east-1,g7.2xlarge,1.5,USD,2026-07-20T13:44:30Z\n"
	in := feeds.Inputs{Shared: fstest.MapFS{"od.csv": {Data: []byte(csv)}}, Curated: fstest.MapFS{"aws.yaml": {Data: []byte(curatedYAML)}}}
	od := func(source string) []feeds.Source {
		return []feeds.Source{curated.New("*.yaml"), awsOnDemand("od.csv", source)}
	}
	snap, rep, err := BuildFrom(specsWith(t, "", ""), od("karpenter-aws@2026-07-20"), in)
	if err != nil {
		t.Fatal(err)
	}
	if len(snap.Offerings) != 1 || snap.Offerings[0].VCPUs != 96 || snap.Offerings[0].GPUCount != 8 || snap.Offerings[0].OnDemand.AsOf != "2026-07-20" {
		t.Errorf("offerings %+v, want p4d.24xlarge with the curated 8 GPUs and 96 vCPUs, priced as of 2026-07-20", snap.Offerings)
	}
	if len(snap.LeftOut) != 1 || snap.LeftOut[0].InstanceType != "g7.2xlarge" || !strings.Contains(snap.LeftOut[0].Reason, "no curated spec") {
		t.Errorf("left out %+v, want g7.2xlarge for want of a curated spec", snap.LeftOut)
	}
	if len(rep.LeftOut) != 1 || rep.LeftOut[0].Origin != "od.csv:3" {
		t.Errorf("report %v, want od.csv:3", rep.LeftOut)
	}
	if _, _, err := BuildFrom(specsWith(t, "", ""), od("nowhere@2026"), in); err == nil || !strings.Contains(err.Error(), `"nowhere@2026" is not in sources.yaml`) {
		t.Errorf("unlisted source: error %v", err)
	}
}

func awsOnDemand(path, source string) feeds.Source {
	return awsondemand.New(path, map[string]string{"us-east-1": source})
}

// A curated network is a kind and a listed source, together, with its Gbps
// where a source gives them; the offering carries all three. A kind whose
// bandwidth nobody states keeps the Gbps unknown and is not a fast network.
func TestCuratedNetwork(t *testing.T) {
	row := "us-east-1,p4d.24xlarge,21.957642,USD,2026-07-20T13:44:30Z\n"
	csv := "region,instance_type,ondemand_price_per_hour,currency,generated_at\n" + row
	spec := "provider: aws\nspec_source: aws-ec2-accelerated\ninstances:\n  - {type: p4d.24xlarge, gpu: A100-SXM4-40GB, gpu_count: 8, vcpus: 96, memory_gib: 1152%s}\n"
	for _, tc := range []struct {
		net, err string
		gbps     float64
		fast     bool
	}{
		{", network_gbps: 400, network_kind: efa, network_source: aws-efa-network", "", 400, true},
		{", network_gbps: 400, network_kind: myrinet, network_source: aws-efa-network", `network_kind "myrinet"; allowed: efa, infiniband, gpudirect-tcpx, gpudirect-tcpxo, rdma, ethernet`, 0, false},
		{", network_gbps: 400, network_kind: efa", "network_kind and network_source go together", 0, false},
		{", network_kind: efa, network_source: aws-efa-network", "", 0, false}, // the fabric is sourced, its bandwidth is not
		{", network_gbps: -1, network_kind: efa, network_source: aws-efa-network", "network_gbps -1 is negative", 0, false},
		{", network_gbps: 400, network_kind: efa, network_source: nowhere", `network_source "nowhere" is not in sources.yaml`, 0, false},
		{", spec_source: nowhere", `spec_source "nowhere" is not in sources.yaml`, 0, false},
	} {
		in := feeds.Inputs{Shared: fstest.MapFS{"od.csv": {Data: []byte(csv)}},
			Curated: fstest.MapFS{"aws.yaml": {Data: []byte(strings.Replace(spec, "%s", tc.net, 1))}}}
		snap, _, err := BuildFrom(specsWith(t, "", ""), []feeds.Source{curated.New("*.yaml"), awsOnDemand("od.csv", "karpenter-aws@2026-07-20")}, in)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: error %v, want %q", tc.net, err, tc.err)
			}
		case err != nil:
			t.Errorf("%s: %v", tc.net, err)
		default:
			o := snap.Offerings[0]
			if o.NetworkKind != catalog.NetEFA || o.NetworkGbps != tc.gbps || o.NetworkSource != "aws-efa-network" || o.FastNetwork() != tc.fast {
				t.Errorf("network %s %g %s fast %v, want efa %g aws-efa-network fast %v", o.NetworkKind, o.NetworkGbps, o.NetworkSource, o.FastNetwork(), tc.gbps, tc.fast)
			}
		}
	}
}
