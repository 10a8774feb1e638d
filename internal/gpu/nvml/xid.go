package nvml

import (
	"errors"
	"fmt"
)

// eventData is nvmlEventData_t: 32 bytes.
type eventData struct {
	device            uintptr
	eventType         uint64
	eventData         uint64
	gpuInstanceID     uint32
	computeInstanceID uint32
}

const eventTypeXidCritical = 0x8 // nvmlEventTypeXidCriticalError

// XidEvents watches devices for Xid errors (the driver's error reports,
// XID 79 "fallen off the bus", 48 "double-bit ECC", ...) through an NVML
// event set. Poll never waits.
type XidEvents struct {
	n   *NVML
	set uintptr
}

// Xid is one Xid error of a device.
type Xid struct {
	Device *Device
	Code   uint64
}

// WatchXid registers devs for Xid errors. Devices that cannot report them
// (NOT_SUPPORTED, as in many virtual machines) are left out; the error is
// non-nil only when none of devs could be registered.
func (n *NVML) WatchXid(devs []*Device) (*XidEvents, error) {
	f := &n.f
	if f.eventSetNew == nil || f.eventSetFree == nil || f.eventRegister == nil || f.eventWait == nil {
		return nil, missing("nvmlEventSetCreate|nvmlDeviceRegisterEvents|nvmlEventSetWait_v2")
	}
	x := &XidEvents{n: n}
	if err := check("nvmlEventSetCreate", f.eventSetNew(&x.set)); err != nil {
		return nil, err
	}
	var errs []error
	ok := 0
	for _, d := range devs {
		if err := check("nvmlDeviceRegisterEvents", f.eventRegister(d.h, eventTypeXidCritical, x.set)); err != nil {
			errs = append(errs, fmt.Errorf("GPU %d: %w", d.index, err))
			continue
		}
		ok++
	}
	if ok == 0 && len(devs) > 0 {
		f.eventSetFree(x.set)
		return nil, errors.Join(errs...)
	}
	return x, nil
}

// MaxXidPerPoll bounds the events one Poll drains.
const MaxXidPerPoll = 1024

// Poll returns the Xid errors reported since the last poll, matched to
// devs by handle, without waiting.
func (x *XidEvents) Poll(devs []*Device) ([]Xid, error) {
	var out []Xid
	for range MaxXidPerPoll {
		var e eventData
		rc := x.n.f.eventWait(x.set, &e, 0)
		if Return(rc) == ErrorTimeout {
			return out, nil
		}
		if err := check("nvmlEventSetWait_v2", rc); err != nil {
			return out, err
		}
		if e.eventType&eventTypeXidCritical == 0 {
			continue
		}
		for _, d := range devs {
			if d.h == e.device {
				out = append(out, Xid{Device: d, Code: e.eventData})
			}
		}
	}
	return out, nil
}

// Close frees the event set.
func (x *XidEvents) Close() error {
	return check("nvmlEventSetFree", x.n.f.eventSetFree(x.set))
}
