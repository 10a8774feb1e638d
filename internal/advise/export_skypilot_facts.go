package advise

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// What SkyPilot itself knows, for the SkyPilot export: which accelerators
// its catalogs list per cloud, which instance types it can launch on the
// clouds gpuscout prices from other feeds (AWS, Azure, GCP), and where it
// supports `resources: network_tier: best`. Each table cites where it was
// read; export_skypilot_test.go checks the catalog tables against the
// SkyPilot CSVs under shared/data/skypilot-catalog where they are present.

// skyCatalogAccels are the accelerator names SkyPilot's catalogs of AWS,
// Azure and GCP list: common/accelerators.csv of skypilot-org/skypilot-catalog
// catalogs/v9 @2c3d7ea7 (the union of the clouds' vms.csv, with the clouds
// whose catalog has each name), the rows whose Clouds hold AWS, Azure or GCP.
// SkyPilot matches an `accelerators:` name against this file (sky/catalog/
// accelerator_registry.py canonicalize_accelerator_name): a name that is not
// listed but matches one listed name of the cloud as a regular expression is
// silently replaced by it, so the export writes only names read from
// SkyPilot's own row for the instance type.
var skyCatalogAccels = map[string][]string{
	"aws": {"A100", "A100-80GB", "A10G", "B200", "B300", "Gaudi HL-205", "H100", "H200", "Inferentia", "Inferentia2",
		"L4", "L40S", "RTXPRO6000", "Radeon Pro V520", "T4", "T4g", "Trainium", "Trainium2", "V100", "V100-32GB"},
	"azure": {"A10", "A100", "A100-80GB", "H100", "K80", "M60", "Radeon MI25", "T4", "V100", "V100-32GB"},
	"gcp": {"A100", "A100-80GB", "B200", "H100", "H100-MEGA", "H200", "L4", "P100", "P4", "T4", "V100",
		"tpu-v2", "tpu-v3", "tpu-v4", "tpu-v5litepod", "tpu-v5p", "tpu-v6e"},
}

// skyAccelName is SkyPilot's name for a gpuscout GPU on the clouds whose
// catalog rows gpuscout reads from other feeds: AWS names come from the EC2
// API's GpuInfo/NeuronInfo as sky/catalog/data_fetchers/fetch_aws.py
// @00526108 copies them (with its overrides: p3dn V100-32GB, p4de A100-80GB,
// p5en H200; g7e's RTX PRO Server 6000 is RTXPRO6000 in catalogs/v9
// aws/vms.csv), Azure names from FAMILY_NAME_TO_SKYPILOT_GPU_NAME in
// fetch_azure.py @0089fca0. "" marks a GPU whose family SkyPilot's fetcher
// maps to no accelerator (SkyPilot lists such a VM, if at all, without GPUs).
var skyAccelName = map[string]map[string]string{
	"aws": {
		"A100-SXM4-40GB": "A100", "A100-SXM4-80GB": "A100-80GB", "A10G": "A10G", "B200": "B200",
		"Gaudi": "Gaudi HL-205", "H100-SXM5-80GB": "H100", "H200-SXM-141GB": "H200",
		"Inferentia1": "Inferentia", "Inferentia2": "Inferentia2", "K520": "K520", "K80": "K80", "L4": "L4",
		"L40S": "L40S", "M60": "M60", "RTXPRO4500-Server": "RTXPRO4500", "RTXPRO6000-Server": "RTXPRO6000",
		"RadeonProV520": "Radeon Pro V520", "T4": "T4", "T4G": "T4g", "Trainium1": "Trainium",
		"Trainium2": "Trainium2", "V100-SXM2-16GB": "V100", "V100-SXM2-32GB": "V100-32GB",
	},
	"azure": {
		"A10": "A10", "A100-PCIe-80GB": "A100-80GB", "A100-SXM4-40GB": "A100", "A100-SXM4-80GB": "A100-80GB",
		"GB200": "GB200", "H100-NVL-94GB": "H100", "H100-SXM5-80GB": "H100", "H200-SXM-141GB": "H200",
		"K80": "K80", "M60": "M60", "MI25": "Radeon MI25", "MI300X": "MI300X", "T4": "T4",
		"V100-16GB": "V100", "V100-SXM2-16GB": "V100", "V100-SXM2-32GB": "V100-32GB",
		"RTXPRO6000-Server": "", "RadeonProV620": "", "RadeonProV710": "",
	},
}

// skyAbsentTypes are instance types SkyPilot's catalog of a cloud drops
// although it lists their accelerator, with why.
var skyAbsentTypes = map[string]map[string]string{
	// fetch_azure.py DEPRECATED_FAMILIES: "Azure secretly deprecated the
	// M60 family which is still returned by its API" (standardNVSv2Family).
	"azure": {
		"Standard_NV6s_v2":  "SkyPilot's azure fetcher drops the deprecated NVv2 family",
		"Standard_NV12s_v2": "SkyPilot's azure fetcher drops the deprecated NVv2 family",
		"Standard_NV24s_v2": "SkyPilot's azure fetcher drops the deprecated NVv2 family",
	},
}

// skyGCPInstanceAccels are the GCP instance types whose accelerators
// SkyPilot infers from the type, as it names them: _ACC_INSTANCE_TYPE_DICTS
// in sky/catalog/gcp_catalog.py @00526108. Any other GCP type is a host VM
// SkyPilot attaches no GPU to unless `accelerators:` names one.
var skyGCPInstanceAccels = map[string]string{
	"a2-highgpu-1g": "A100:1", "a2-highgpu-2g": "A100:2", "a2-highgpu-4g": "A100:4", "a2-highgpu-8g": "A100:8",
	"a2-megagpu-16g": "A100:16", "a2-ultragpu-1g": "A100-80GB:1", "a2-ultragpu-2g": "A100-80GB:2",
	"a2-ultragpu-4g": "A100-80GB:4", "a2-ultragpu-8g": "A100-80GB:8",
	"g2-standard-4": "L4:1", "g2-standard-8": "L4:1", "g2-standard-12": "L4:1", "g2-standard-16": "L4:1",
	"g2-standard-32": "L4:1", "g2-standard-24": "L4:2", "g2-standard-48": "L4:4", "g2-standard-96": "L4:8",
	"a3-highgpu-1g": "H100:1", "a3-highgpu-2g": "H100:2", "a3-highgpu-4g": "H100:4", "a3-highgpu-8g": "H100:8",
	"a3-megagpu-8g": "H100-MEGA:8", "a3-ultragpu-8g": "H200:8", "a4-highgpu-8g": "B200:8",
}

// skyOwnCatalogClouds are the clouds gpuscout prices from SkyPilot's own
// catalog (feeds/skypilot): their rows carry SkyPilot's accelerator name,
// and a row without one was not read from SkyPilot's catalog.
var skyOwnCatalogClouds = []string{"lambda", "nebius", "vast", "fluidstack", "seeweb"}

// skyPilotCatalogCheck says what SkyPilot's own catalog knows of the
// offering's instance type on its cloud: the accelerator as SkyPilot names
// it ("NAME:COUNT"; "" where gpuscout cannot tell, which does not block),
// and why SkyPilot cannot launch the instance type with its accelerators
// ("" where it can).
func skyPilotCatalogCheck(cloud string, o *catalog.Offering) (skyAccel, why string) {
	if o.SkyPilotAccelerator != "" {
		return o.SkyPilotAccelerator + ":" + fmtCount(o.GPUCount), ""
	}
	gpu := "?"
	if o.GPU != nil {
		gpu = o.GPU.Name
	}
	switch cloud {
	case "gcp":
		if acc, ok := skyGCPInstanceAccels[o.InstanceType]; ok {
			return acc, ""
		}
		return "", fmt.Sprintf("SkyPilot's gcp catalog gives instance type %s no accelerator (it infers them for a2, a3, a4 and g2 types only), so it cannot launch it with its %s×%s",
			o.InstanceType, fmtCount(o.GPUCount), gpu)
	case "aws", "azure":
		name, known := skyAccelName[cloud][gpu]
		switch {
		case !known:
			return "", "" // not in the table: gpuscout cannot tell (a test keeps the catalog's GPUs in it)
		case name == "":
			return "", fmt.Sprintf("SkyPilot's %s catalog has no accelerator for %s (its fetcher maps the family to none), so it cannot launch it with its %s×%s",
				cloud, o.InstanceType, fmtCount(o.GPUCount), gpu)
		case !slices.Contains(skyCatalogAccels[cloud], name):
			return "", fmt.Sprintf("SkyPilot's %s catalog lists no %s accelerator, so it cannot launch %s with its %s×%s",
				cloud, name, o.InstanceType, fmtCount(o.GPUCount), gpu)
		}
		if why := skyAbsentTypes[cloud][o.InstanceType]; why != "" {
			return "", fmt.Sprintf("SkyPilot's %s catalog has no instance type %s (%s×%s): %s", cloud, o.InstanceType, fmtCount(o.GPUCount), name, why)
		}
		return name + ":" + fmtCount(o.GPUCount), ""
	}
	if slices.Contains(skyOwnCatalogClouds, cloud) {
		return "", fmt.Sprintf("the catalog row of %s (%s×%s) was not read from SkyPilot's %s catalog, so SkyPilot's name for its accelerator is not known",
			o.InstanceType, fmtCount(o.GPUCount), gpu, cloud)
	}
	return "", ""
}

// skyGCPTCPXTypes are the GCP machine types SkyPilot sets GPUDirect-TCPX
// up on for `network_tier: best` (GPU_DIRECT_TCPX_INSTANCE_TYPES in
// sky/provision/gcp/constants.py); sky/provision/gcp/config.py raises
// "Enable GPU Direct requires machineType to be one of ..." for any other.
var skyGCPTCPXTypes = []string{"a3-edgegpu-8g", "a3-highgpu-8g"}

// skyAWSEFAPrefixes are the AWS instance types SkyPilot turns EFA on for
// under `network_tier: best` (_EFA_INSTANCE_TYPE_PREFIXES in sky/clouds/aws.py
// @00526108); on others the key is accepted and changes nothing.
var skyAWSEFAPrefixes = []string{"g4dn.", "g5.", "g6.", "gr6.", "g6e.", "p4d.", "p4de.", "p5.", "p5e.", "p5en.", "p6-b200."}

// skyPilotNetworkTier says whether a task of nodes instances (a cluster or
// a managed job) asks for `resources: network_tier: best`, and the header
// note that says what it does there, or why the task does not ask for it.
// SkyPilot's clouds decide (CloudImplementationFeatures.CUSTOM_NETWORK_TIER
// in sky/clouds/*.py @00526108): AWS accepts it on every instance type and
// turns EFA on; GCP sets GPUDirect-TCPX up on A3 High/Edge VMs and rejects
// other machine types; Nebius accepts it for H100:8 and H200:8 and builds an
// InfiniBand GPU cluster; Azure, Lambda, Fluidstack, Vast and Seeweb reject it.
func skyPilotNetworkTier(cloud string, o *catalog.Offering, skyAccel string, nodes int) (best bool, note string) {
	if nodes < 2 {
		return false, ""
	}
	// unmet: what gpuscout priced between the nodes that the task does not
	// get SkyPilot to set up; "" where gpuscout priced no fabric.
	unmet := ""
	if o.NetworkKind != "" && o.NetworkKind != catalog.NetEthernet {
		unmet = "; gpuscout priced " + o.NetworkKind
		if o.NetworkGbps > 0 {
			unmet += " at " + fmtCount(o.NetworkGbps) + " Gbps a node"
		}
		unmet += ", which this task does not get SkyPilot to set up: check the transport your collectives use (NCCL_DEBUG=INFO for NCCL) before a long run"
	}
	switch cloud {
	case "aws":
		if !slices.ContainsFunc(skyAWSEFAPrefixes, func(p string) bool { return strings.HasPrefix(o.InstanceType, p) }) {
			return true, fmt.Sprintf("network_tier: best for the %d nodes, but SkyPilot turns EFA on only for %s instance types, not %s%s",
				nodes, strings.Join(trimDots(skyAWSEFAPrefixes), ", "), o.InstanceType, unmet)
		}
		return true, fmt.Sprintf("network_tier: best: SkyPilot turns EFA on for the %d nodes where %s has it; it attaches all of an instance's EFA interfaces only with aws.use_internal_ips: true in SkyPilot's config, otherwise one",
			nodes, o.InstanceType)
	case "gcp":
		if slices.Contains(skyGCPTCPXTypes, o.InstanceType) {
			return true, fmt.Sprintf("network_tier: best: SkyPilot sets GPUDirect-TCPX up for the %d nodes (its GPUDirect image, a compact placement policy)", nodes)
		}
		return false, fmt.Sprintf("no network_tier: on GCP VMs SkyPilot's network_tier: best sets GPUDirect-TCPX up only on %s and rejects %s%s",
			strings.Join(skyGCPTCPXTypes, " and "), o.InstanceType, unmet)
	case "nebius":
		name, count, _ := strings.Cut(skyAccel, ":")
		if (strings.EqualFold(name, "H100") || strings.EqualFold(name, "H200")) && count == "8" {
			return true, fmt.Sprintf("network_tier: best: SkyPilot puts the %d nodes in a Nebius GPU cluster on InfiniBand", nodes)
		}
		acc := skyAccel
		if acc == "" {
			acc = o.InstanceType
		}
		return false, fmt.Sprintf("no network_tier: SkyPilot accepts network_tier: best on nebius only for H100:8 and H200:8 (later SkyPilot adds B200 and B300), not %s%s",
			acc, unmet)
	}
	return false, fmt.Sprintf("no network_tier: SkyPilot does not support network_tier on %s (it would reject the key)%s", cloud, unmet)
}

func trimDots(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = strings.TrimSuffix(p, ".")
	}
	return out
}
