package nvml

// ECCErrors are a GPU's ECC error counts since the driver loaded (NVML's
// volatile counters).
type ECCErrors struct{ Corrected, Uncorrected uint64 }

// ECCErrors reads nvmlDeviceGetTotalEccErrors (volatile counters);
// NOT_SUPPORTED where ECC is off or absent.
func (d *Device) ECCErrors() (ECCErrors, error) {
	const name = "nvmlDeviceGetTotalEccErrors"
	if d.n.f.eccErrors == nil {
		return ECCErrors{}, missing(name)
	}
	const corrected, uncorrected, volatile = 0, 1, 0 // nvmlMemoryErrorType_t, nvmlEccCounterType_t
	var e ECCErrors
	if err := check(name, d.n.f.eccErrors(d.h, corrected, volatile, &e.Corrected)); err != nil {
		return ECCErrors{}, err
	}
	if err := check(name, d.n.f.eccErrors(d.h, uncorrected, volatile, &e.Uncorrected)); err != nil {
		return ECCErrors{}, err
	}
	return e, nil
}

// PCIeThroughput is the PCIe traffic of the GPU, bytes per second.
type PCIeThroughput struct{ TX, RX float64 }

// PCIeThroughput reads nvmlDeviceGetPcieThroughput for both directions.
// NVML samples each for about 20 ms (20.9 ms a call on the recorded H200),
// so a caller reads it only when asked. NVML reports KB/s; a KB is taken
// as 1024 bytes.
func (d *Device) PCIeThroughput() (PCIeThroughput, error) {
	const name = "nvmlDeviceGetPcieThroughput"
	if d.n.f.pcieTput == nil {
		return PCIeThroughput{}, missing(name)
	}
	const tx, rx = 0, 1 // nvmlPcieUtilCounter_t
	var t, r uint32
	if err := check(name, d.n.f.pcieTput(d.h, tx, &t)); err != nil {
		return PCIeThroughput{}, err
	}
	if err := check(name, d.n.f.pcieTput(d.h, rx, &r)); err != nil {
		return PCIeThroughput{}, err
	}
	return PCIeThroughput{TX: float64(t) * 1024, RX: float64(r) * 1024}, nil
}
