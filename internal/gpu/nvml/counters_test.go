package nvml

import "testing"

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
