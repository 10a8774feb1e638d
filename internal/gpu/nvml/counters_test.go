package nvml

import (
	"testing"
	"unsafe"
)

// The recorded H200 (gpuprobe.jsonl): no ECC errors; PCIe 2358 KB/s sent,
// 603 KB/s received; a lost GPU is an error, not zeros.
func TestCounters(t *testing.T) {
	n := openFake(t)
	d, err := n.Device(0)
	if err != nil {
		t.Fatal(err)
	}
	e, err := d.ECCErrors()
	if err != nil || e != (ECCErrors{}) {
		t.Errorf("ECCErrors = %+v, %v; want zeros", e, err)
	}
	p, err := d.PCIeThroughput()
	if want := (PCIeThroughput{TX: 2358 * 1024, RX: 603 * 1024}); err != nil || p != want {
		t.Errorf("PCIeThroughput = %+v, %v; want %+v", p, err, want)
	}
	n.set("lost", 1)
	defer n.set("lost", 0)
	if _, err := d.ECCErrors(); err == nil {
		t.Error("ECCErrors on a lost GPU: no error")
	}
	if _, err := d.PCIeThroughput(); err == nil {
		t.Error("PCIeThroughput on a lost GPU: no error")
	}
}

// Xid errors queued on GPU 0 arrive, in order, at the next poll, matched
// to the device; a poll never waits.
func TestXid(t *testing.T) {
	if got := unsafe.Sizeof(eventData{}); got != 32 {
		t.Errorf("nvmlEventData_t: %d bytes, want 32", got)
	}
	n := openFake(t)
	n.set("gpus", 2)
	devs, err := n.Devices()
	if err != nil {
		t.Fatal(err)
	}
	x, err := n.WatchXid(devs)
	if err != nil {
		t.Fatal(err)
	}
	defer x.Close()
	if got, err := x.Poll(devs); err != nil || len(got) != 0 {
		t.Errorf("first poll: %+v, %v; want none", got, err)
	}
	n.set("xid", 79)
	n.set("xid", 48)
	got, err := x.Poll(devs)
	if err != nil || len(got) != 2 || got[0].Code != 79 || got[1].Code != 48 || got[0].Device != devs[0] {
		t.Errorf("poll: %+v, %v; want 79 then 48 on GPU 0", got, err)
	}
}
