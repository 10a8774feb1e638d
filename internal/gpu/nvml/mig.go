package nvml

import (
	"fmt"
	"strings"
)

// DeviceByUUID returns the device with this UUID: a GPU ("GPU-8a89…") or a
// MIG instance ("MIG-…", whose Parent is its GPU). A CUDA device's UUID
// (cuDeviceGetUuid) carries no prefix: a "GPU-" one that NVML does not know
// is tried as "MIG-" too, since CUDA numbers MIG instances, not their GPUs,
// when MIG is on. This is how a CUDA ordinal finds its NVML device whatever
// CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER did to the numbering.
func (n *NVML) DeviceByUUID(uuid string) (*Device, error) {
	if n.f.handleByUUID == nil {
		return nil, missing("nvmlDeviceGetHandleByUUID")
	}
	tries := []string{uuid}
	if rest, ok := strings.CutPrefix(uuid, "GPU-"); ok {
		tries = append(tries, "MIG-"+rest)
	}
	var firstErr error
	for _, u := range tries {
		d, err := n.byUUID(u)
		if err == nil {
			return d, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	return nil, fmt.Errorf("nvml: no GPU or MIG instance with uuid %s: %w", uuid, firstErr)
}

func (n *NVML) byUUID(uuid string) (*Device, error) {
	b := append([]byte(uuid), 0)
	var h uintptr
	if err := check("nvmlDeviceGetHandleByUUID", n.f.handleByUUID(&b[0], &h)); err != nil {
		return nil, err
	}
	isMIG := strings.HasPrefix(uuid, "MIG-")
	if n.f.isMigHandle != nil {
		var is uint32
		if check("nvmlDeviceIsMigDeviceHandle", n.f.isMigHandle(h, &is)) == nil {
			isMIG = is != 0
		}
	}
	if !isMIG {
		return &Device{n: n, h: h, index: n.indexOf(h)}, nil
	}
	if n.f.migParent == nil {
		return nil, missing("nvmlDeviceGetDeviceHandleFromMigDeviceHandle")
	}
	var ph uintptr
	if err := check("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", n.f.migParent(h, &ph)); err != nil {
		return nil, err
	}
	parent := &Device{n: n, h: ph, index: n.indexOf(ph)}
	return &Device{n: n, h: h, index: parent.index, parent: parent}, nil
}

// indexOf finds a GPU handle's index (-1 when it is none of them).
func (n *NVML) indexOf(h uintptr) int {
	c, err := n.DeviceCount()
	if err != nil {
		return -1
	}
	for i := range c {
		var hi uintptr
		if n.f.handleByIndex(uint32(i), &hi) == int32(Success) && hi == h {
			return i
		}
	}
	return -1
}
