package doctor

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/cuda"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
	"github.com/gpuscout/gpuscout/internal/gpu/nvml"
)

// Runtime is what the driver says when the GPUs are opened the way bench
// opens them (cuInit, a context on each GPU, a cuBLAS and a cuBLASLt
// handle) and what NVML
// says of each GPU meanwhile: the failures nvidia-smi does not show.
type Runtime struct {
	// Hung is the watchdog's message when a driver call did not return.
	Hung string
	// Init is cuInit's failure (802 without the fabric manager, ...); nil
	// when the driver started.
	Init *RuntimeError
	// DriverCUDA is the CUDA version the driver supports ("12.4"), Driver
	// its version where NVML says ("550.54.15").
	DriverCUDA, Driver string
	GPUs               []RuntimeGPU
}

// RuntimeError is a failed driver call: what happened and what to do.
type RuntimeError struct {
	Code   int    // CUresult, 0 when the failure has none
	Detail string // the call, the code's name and the driver's message
	Fix    string
}

// RuntimeGPU is one CUDA device as bench would open it.
type RuntimeGPU struct {
	Index       int // CUDA's ordinal
	Name, UUID  string
	BusID       string
	MIG         bool // a MIG instance
	Open        *RuntimeError
	ComputeMode string        // nvidia-smi's word: "Default", "Exclusive_Process", "Prohibited"; "" unknown
	Processes   []gpu.Process // other programs computing on it
	// ClockReasons are the active clock-event reasons (NVML's names:
	// "gpu_idle", "sw_power_cap", "hw_thermal_slowdown", ...).
	ClockReasons []string
	// Remapped is the memory row remapping; nil where NVML does not report
	// it (before Ampere, MIG on).
	Remapped *nvml.RemappedRows
	// BLAS is the cuBLAS that started on it ("path (cuBLAS 12.9.1)"),
	// BLASError why none did, BLASSkipped the ones passed over.
	BLAS, BLASError string
	BLASSkipped     []string
	// Lt is the cuBLASLt that started on it (bench's FP8 products), LtError
	// why none did, LtSkipped the ones passed over.
	Lt, LtError string
	LtSkipped   []string

	processesRead bool
}

// runtimeTimeout bounds one driver call of the runtime probe: a GPU that
// hangs the driver makes the check fail instead of doctor hanging.
const runtimeTimeout = 30 * time.Second

// GPURuntime opens the GPUs with the CUDA driver (and cuBLAS) and reads each
// one's state through NVML; nil when there is no driver library. The GPUs
// are closed again before it returns. A driver call that hangs is reported
// (Runtime.Hung), not waited for.
func (s System) GPURuntime(ctx context.Context) *Runtime {
	env := s.libEnv()
	var r *Runtime
	hung := cuda.Probe(ctx, cuda.Options{Env: &env, CallTimeout: runtimeTimeout}, func(devs []gpu.Device, err error) {
		r = inspectRuntime(env, devs, err)
	})
	if hung != "" {
		return &Runtime{Hung: hung}
	}
	return r
}

// inspectRuntime reads what Open gave: the driver's failure, or each GPU.
func inspectRuntime(env dl.Env, devs []gpu.Device, err error) *Runtime {
	r := &Runtime{}
	if lib, lerr := dl.OpenEnv(dl.CUDA, env); lerr == nil {
		r.DriverCUDA, _ = lib.Version()
	}
	if err != nil {
		if errors.Is(err, dl.ErrNotFound) {
			return nil
		}
		r.Init = runtimeError(err)
		return r
	}
	var nv *nvml.NVML
	if n, err := nvml.OpenEnv(env); err == nil {
		nv = n
		defer nv.Close()
		r.Driver, _ = nv.DriverVersion()
	}
	for _, d := range devs {
		in := d.Info()
		g := RuntimeGPU{Index: in.Index, Name: in.Name, UUID: in.UUID, BusID: in.BusID}
		if err := gpu.OpenError(d); err != nil {
			g.Open = runtimeError(err)
		} else if cd, ok := d.(*cuda.Device); ok {
			// Processes as bench sees them: this one left out even where
			// NVML numbers it in another PID namespace.
			if ps, err := cd.OtherProcesses(); err == nil {
				g.Processes, g.processesRead = ps, true
			}
			g.BLAS = in.Libraries["cublas"]
			if v := in.Libraries["cublas_version"]; v != "" {
				g.BLAS += " (cuBLAS " + v + ")"
			}
			if err := cd.BLASError(); err != nil {
				g.BLASError = err.Error()
			}
			g.BLASSkipped = cd.BLASSkipped()
			g.Lt = in.Libraries["cublaslt"]
			if v := in.Libraries["cublaslt_version"]; v != "" {
				g.Lt += " (cuBLASLt " + v + ")"
			}
			// cuBLASLt missing altogether is the library check's to say.
			if err := cd.LtError(); err != nil && !errors.Is(err, gpu.ErrNoLibrary) {
				g.LtError = err.Error()
			}
			g.LtSkipped = cd.LtSkipped()
		}
		if nv != nil {
			readNVML(nv, &g)
		}
		r.GPUs = append(r.GPUs, g)
	}
	return r
}

// readNVML completes a GPU's facts from its NVML device, found by UUID
// (a MIG instance's too) or bus id.
func readNVML(nv *nvml.NVML, g *RuntimeGPU) {
	nd, err := nv.FindDevice(g.UUID, g.BusID)
	if err != nil {
		return
	}
	g.MIG = nd.IsMIG()
	if m, err := nd.ComputeMode(); err == nil {
		g.ComputeMode = m.String()
	}
	if ps, err := nd.OtherProcesses(); err == nil && !g.processesRead {
		g.Processes = ps
	}
	if r, err := nd.Parent().ClockEventReasons(); err == nil {
		g.ClockReasons = nvml.ReasonNames(r)
	}
	if rr, err := nd.RemappedRows(); err == nil {
		g.Remapped = &rr
	}
}

// runtimeError splits a driver error into what happened and the fix.
func runtimeError(err error) *RuntimeError {
	e := &RuntimeError{}
	var ce *cuda.Error
	if errors.As(err, &ce) {
		e.Code, e.Fix = int(ce.Code), ce.Fix
		c := *ce
		c.Fix = ""
		e.Detail = strings.Replace(err.Error(), ce.Error(), c.Error(), 1)
		return e
	}
	e.Detail, e.Fix = splitFix(err.Error())
	return e
}

// splitFix separates "what happened; fix: what to do" at its last "; fix: ".
func splitFix(msg string) (detail, fix string) {
	if i := strings.LastIndex(msg, "; fix: "); i >= 0 {
		return msg[:i], msg[i+len("; fix: "):]
	}
	return msg, ""
}

// libEnv is where System finds the GPU libraries.
func (s System) libEnv() dl.Env {
	if s.Libs != nil {
		return *s.Libs
	}
	return dl.SystemEnv()
}

// driverCUDA asks libcuda which CUDA version the driver supports
// (cuDriverGetVersion needs no cuInit), 0 when there is no libcuda.
func driverCUDA(env dl.Env) int {
	lib, err := dl.OpenEnv(dl.CUDA, env)
	if err != nil {
		return 0
	}
	v, err := lib.Version()
	if err != nil {
		return 0
	}
	p := parseVersion(v)
	if len(p) < 2 {
		return 0
	}
	return p[0]*1000 + p[1]*10
}
