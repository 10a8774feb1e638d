package tencentdocs

import (
	"slices"
	"strings"
)

// AvailabilitySource is the source id of the mainland regions each family
// is sold in: Tencent Cloud's GPU "Computing instances" documentation
// (intlcloud-documents, 计算型实例_intl_en.md, at commit b7e17ea6), whose
// overview table gives each family's regions "accurate to the city level".
const AvailabilitySource = "tencent-gpu-instance-types@b7e17ea6"

// mainlandByFamily is, per family, the mainland regions of that table.
// The China site's list prices (one price, or a range, for all of mainland
// China) are placed in these regions.
var mainlandByFamily = map[string][]string{
	"GT4":    {"ap-guangzhou", "ap-shanghai", "ap-beijing", "ap-nanjing"},
	"GN10Xp": {"ap-guangzhou", "ap-shanghai", "ap-beijing", "ap-nanjing", "ap-chengdu", "ap-chongqing"},
	"GN7":    {"ap-guangzhou", "ap-shanghai", "ap-nanjing", "ap-beijing", "ap-chengdu", "ap-chongqing"},
	"GI3X":   {"ap-guangzhou", "ap-shanghai", "ap-beijing", "ap-nanjing", "ap-chengdu", "ap-chongqing"},
	"GN10X":  {"ap-guangzhou", "ap-shanghai", "ap-beijing", "ap-nanjing", "ap-chengdu", "ap-chongqing"},
	"GN8":    {"ap-guangzhou", "ap-shanghai", "ap-beijing", "ap-chengdu", "ap-chongqing"},
	"GN6":    {"ap-chengdu"},
	"GN6S":   {"ap-guangzhou", "ap-shanghai", "ap-beijing"},
}

// mainlandByType overrides the family for a size the documentation places
// apart. GN10X.4XLARGE80 is no longer in the Computing instances page's
// GN10X table; the NVIDIA GPU instances page at the same commit (NVIDIA
// 系列实例_intl_en.md) sells it in Guangzhou Zones 3 and 4, Nanjing Zone 1,
// Chengdu Zone 1 and Chongqing Zone 1 only.
var mainlandByType = map[string][]string{
	"GN10X.4XLARGE80": {"ap-guangzhou", "ap-nanjing", "ap-chengdu", "ap-chongqing"},
}

// Family is the family of an instance type: "GN10Xp" of "GN10Xp.2XLARGE40".
func Family(instanceType string) string {
	f, _, _ := strings.Cut(instanceType, ".")
	return f
}

// MainlandRegions returns the mainland regions Tencent's documentation
// sells the instance type in, sorted; nil for a type it does not list.
func MainlandRegions(instanceType string) []string {
	rs, ok := mainlandByType[instanceType]
	if !ok {
		rs = mainlandByFamily[Family(instanceType)]
	}
	if rs == nil {
		return nil
	}
	return slices.Sorted(slices.Values(rs))
}
