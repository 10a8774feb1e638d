package cuda

import (
	"fmt"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/nvml"
)

// resultPeerAlreadyEnabled is CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED.
const resultPeerAlreadyEnabled = 704

var _ gpu.Peer = (*Device)(nil)

// peerOf returns other as a GPU of the same Open as d, or an error.
func (d *Device) peerOf(other gpu.Device) (*Device, error) {
	p, ok := other.(*Device)
	if !ok || p == nil {
		return nil, fmt.Errorf("GPU %d: a peer must be a CUDA GPU, not %T", d.ord, other)
	}
	if p.drv != d.drv {
		return nil, fmt.Errorf("GPU %d: GPU %d comes from another Open", d.ord, p.ord)
	}
	return p, nil
}

// CanAccessPeer reports whether this GPU can address peer's memory directly
// (cuDeviceCanAccessPeer): over NVLink or PCIe peer-to-peer.
func (d *Device) CanAccessPeer(peer gpu.Device) (bool, error) {
	p, err := d.peerOf(peer)
	if err != nil {
		return false, err
	}
	f := d.drv.f.canAccessPeer
	if f == nil {
		return false, fmt.Errorf("GPU %d: cuDeviceCanAccessPeer: %w", d.ord, gpu.ErrUnsupported)
	}
	var can int32
	err = d.call("cuDeviceCanAccessPeer", func() int32 { return f(&can, d.dev, p.dev) })
	return can != 0, err
}

// EnablePeer lets this GPU's kernels and copies reach peer's memory
// directly (cuCtxEnablePeerAccess); enabling twice is not an error.
func (d *Device) EnablePeer(peer gpu.Device) error {
	p, err := d.peerOf(peer)
	if err != nil {
		return err
	}
	f := d.drv.f.enablePeer
	if f == nil {
		return fmt.Errorf("GPU %d: cuCtxEnablePeerAccess: %w", d.ord, gpu.ErrUnsupported)
	}
	return d.call("cuCtxEnablePeerAccess", func() int32 {
		if rc := f(p.ctx, 0); rc != resultPeerAlreadyEnabled {
			return rc
		}
		return 0
	})
}

// CopyFromPeer queues, on this GPU's stream, a copy of n bytes from src on
// peer to dst on this GPU (cuMemcpyPeerAsync): the unit of a P2P bandwidth
// matrix. Without peer access enabled the driver stages it through the host.
func (d *Device) CopyFromPeer(dst gpu.Ptr, peer gpu.Device, src gpu.Ptr, n int64) error {
	p, err := d.peerOf(peer)
	if err != nil {
		return err
	}
	f := d.drv.f.memcpyPeer
	if f == nil {
		return fmt.Errorf("GPU %d: cuMemcpyPeerAsync: %w", d.ord, gpu.ErrUnsupported)
	}
	if n < 0 {
		return fmt.Errorf("peer copy: %d bytes; want 0 or more", n)
	}
	if n == 0 {
		return nil
	}
	return d.call("cuMemcpyPeerAsync", func() int32 {
		return f(uint64(dst), d.ctx, uint64(src), p.ctx, uint64(n), d.stream)
	})
}

// LinkTo is what NVML says about the path to peer (NVLink or the PCIe
// topology), for labelling a P2P matrix; gpu.ErrUnsupported without NVML.
func (d *Device) LinkTo(peer gpu.Device) (nvml.Link, error) {
	p, err := d.peerOf(peer)
	if err != nil {
		return nvml.Link{}, err
	}
	if d.nv == nil || p.nv == nil {
		return nvml.Link{}, fmt.Errorf("GPU %d: link type needs NVML: %w", d.ord, gpu.ErrUnsupported)
	}
	return d.nv.LinkTo(p.nv)
}

// PeerLink is LinkTo's link type alone (gpu.Peer).
func (d *Device) PeerLink(peer gpu.Device) (string, error) {
	l, err := d.LinkTo(peer)
	if err != nil {
		return "", err
	}
	return l.Type, nil
}
