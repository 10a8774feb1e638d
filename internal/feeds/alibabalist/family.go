package alibabalist

import (
	"regexp"
	"strings"
	"sync"
)

// gpuFamilyRE matches the instance families Alibaba Cloud's naming
// conventions give a GPU: gn (NVIDIA GPU compute-optimized), sgn and vgn
// (NVIDIA GRID vGPU, shared and dedicated), ebmgn and sccgn (the same on
// ECS Bare Metal and Super Computing Cluster), gi and ebmgi (Intel GPU), ga
// (GPU visual computing), each followed by the generation digit.
var gpuFamilyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:gn|sgn|vgn|ebmgn|sccgn|gi|ebmgi|ga)[0-9]`) })

// GPUFamilies names the families IsGPUType accepts, for reports.
const GPUFamilies = "gn, sgn, vgn, ebmgn, sccgn, gi, ebmgi, ga"

// Family returns the instance family of an instance type:
// "ecs.gn7i-c8g1.2xlarge" is gn7i, "ecs.sgn7i-vws-m2.xlarge" sgn7i.
func Family(instanceType string) string {
	s := strings.TrimPrefix(instanceType, "ecs.")
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = s[:i]
	}
	if i := strings.IndexByte(s, '-'); i >= 0 {
		s = s[:i]
	}
	return s
}

// IsGPUType reports whether the instance type belongs to a GPU family.
func IsGPUType(instanceType string) bool { return gpuFamilyRE().MatchString(Family(instanceType)) }
