package cuda

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"time"

	"github.com/gpuscout/gpuscout/internal/gpu"
	"github.com/gpuscout/gpuscout/internal/gpu/dl"
)

// collective is a gpu.Comm over an NCCL Comm: one send and one receive
// buffer per GPU (out of place, as nccl-tests measures by default), grown to
// the largest size asked for. GPU i's send buffer holds i+1 in every fp32
// element, so the sum of n GPUs is n(n+1)/2 everywhere, which AllReduce
// checks at both ends of each receive buffer.
type collective struct {
	c          *Comm
	send, recv []gpu.Ptr
	size       int64
}

var _ gpu.Comm = (*collective)(nil)

// OpenCollective opens NCCL over devs (CUDA GPUs of one Open) as a
// gpu.Comm: the gpu.CommOpener bench is given, for timing, so NCCL's log
// is left as the user set it (OpenComm). Without libnccl.so.2 the error
// wraps gpu.ErrNoCollective; a device that is not a CUDA GPU,
// gpu.ErrUnsupported.
func OpenCollective(devs []gpu.Device) (gpu.Comm, error) { return openCollective(devs, false) }

// NCCLChoices is what NCCL chooses for an fp32 sum all-reduce of each of
// sizes (bytes) over devs, read from its TUNING log: the work of bench's
// probe process (`gpuscout bench nccl-choice`). It opens the communicators
// with NCCL's log turned on (setupNCCLLog: where the user set no
// NCCL_DEBUG, INFO lines of TUNING into a private temporary file), runs
// one untimed all-reduce per size (NCCL logs its choice as it queues each
// one, the first included), and closes them. NCCL sets its log up once a
// process: call it in a process of its own, before any other communicator
// there, and time in another. A size NCCL's log says nothing readable
// about is unknown, with why; an error is for the communicator or an
// all-reduce that failed.
func NCCLChoices(devs []gpu.Device, sizes []int64) (map[int64]gpu.Choice, error) {
	comm, err := openCollective(devs, true)
	if err != nil {
		return nil, err
	}
	k := comm.(*collective)
	defer k.Close()
	out := map[int64]gpu.Choice{}
	for _, size := range sizes {
		if _, ok := out[size]; ok {
			continue
		}
		if _, err := k.AllReduce(gpu.FP32, size, 0, 1); err != nil {
			return nil, fmt.Errorf("all-reduce of %d bytes: %w", size, err)
		}
		out[size] = k.c.Choice(size)
	}
	return out, nil
}

// openCollective is OpenCollective, with NCCL's log turned on where logOn.
func openCollective(devs []gpu.Device, logOn bool) (gpu.Comm, error) {
	cds := make([]*Device, len(devs))
	for i, d := range devs {
		cd, ok := d.(*Device)
		if !ok {
			return nil, fmt.Errorf("nccl: device %d is a %T, not a CUDA GPU: %w", i, d, gpu.ErrUnsupported)
		}
		cds[i] = cd
	}
	c, err := openComm(cds, logOn)
	if err != nil {
		if errors.Is(err, dl.ErrNotFound) {
			return nil, fmt.Errorf("%w: %w", gpu.ErrNoCollective, err)
		}
		return nil, err
	}
	return &collective{c: c}, nil
}

// Devices is the number of GPUs in the communicator.
func (k *collective) Devices() int { return len(k.c.devs) }

// ncclSettings are the environment variables that change which algorithm,
// protocol or path NCCL takes, and so its bus bandwidth (NVLink SHARP, for
// one, can exceed the link speed): Describe names those that are set, and
// Settings gives them for the report. NCCL reads them from the process's
// environment when it starts, as Go does.
var ncclSettings = []string{"NCCL_ALGO", "NCCL_PROTO", "NCCL_NVLS_ENABLE", "NCCL_COLLNET_ENABLE", "NCCL_P2P_DISABLE",
	"NCCL_SHM_DISABLE", "NCCL_P2P_LEVEL", "NCCL_NET_GDR_LEVEL", "NCCL_IB_DISABLE", "NCCL_MIN_NCHANNELS", "NCCL_MAX_NCHANNELS",
	"NCCL_TUNER_PLUGIN"}

// Settings are the variables above that are set, by name.
func (k *collective) Settings() map[string]string {
	out := map[string]string{}
	for _, name := range ncclSettings {
		if v, ok := os.LookupEnv(name); ok {
			out[name] = v
		}
	}
	return out
}

// Choice is what NCCL's log says it chose for the all-reduces of bytes:
// unknown, saying so, where this communicator did not turn the log on
// (OpenCollective) and the user did not either.
func (k *collective) Choice(bytes int64) gpu.Choice { return k.c.Choice(bytes) }

// Describe names NCCL, its version and the settings above that are set:
// "NCCL 2.27.3, NCCL_ALGO=Ring".
func (k *collective) Describe() string {
	s := "NCCL"
	if v := k.c.Version(); v != "" {
		s += " " + v
	}
	for _, name := range ncclSettings {
		if v, ok := os.LookupEnv(name); ok {
			s += ", " + name + "=" + v
		}
	}
	return s
}

// grow makes the buffers hold at least bytes, filling the send buffers.
func (k *collective) grow(bytes int64) error {
	if bytes <= k.size {
		return nil
	}
	k.free()
	size := (bytes + 3) &^ 3
	for i, d := range k.c.devs {
		for _, list := range []*[]gpu.Ptr{&k.send, &k.recv} {
			p, err := d.Alloc(size)
			if err != nil {
				k.free()
				return fmt.Errorf("nccl: allocating %d bytes on GPU %d: %w", size, d.ord, err)
			}
			*list = append(*list, p)
		}
		if err := d.Fill32(k.send[i], math.Float32bits(float32(i+1)), size/4); err != nil {
			k.free()
			return err
		}
		if err := d.Sync(); err != nil {
			k.free()
			return err
		}
	}
	k.size = size
	return nil
}

func (k *collective) free() {
	for i, d := range k.c.devs {
		if i < len(k.send) {
			_ = d.Free(k.send[i])
		}
		if i < len(k.recv) {
			_ = d.Free(k.recv[i])
		}
	}
	k.send, k.recv, k.size = nil, nil, 0
}

// AllReduce sums bytes of dt across the GPUs, warmup times untimed then
// iters times timed (Comm.AllReduce), and returns the time of one; for
// fp32 it checks the sum.
func (k *collective) AllReduce(dt gpu.DType, bytes int64, warmup, iters int) (time.Duration, error) {
	eb := int64(dt.ElemBytes())
	if bytes < eb || bytes%eb != 0 {
		return 0, fmt.Errorf("nccl all-reduce of %d bytes: want a positive multiple of %s's %d bytes", bytes, dt, eb)
	}
	if _, ok := ncclType(dt); !ok {
		return 0, fmt.Errorf("nccl all-reduce %s: %w", dt, gpu.ErrUnsupported)
	}
	if err := k.grow(bytes); err != nil {
		return 0, err
	}
	count := bytes / eb
	t, err := k.c.AllReduce(dt, k.send, k.recv, count, warmup, iters)
	if err != nil || dt != gpu.FP32 {
		return t, err
	}
	n := len(k.c.devs)
	want := float32(n * (n + 1) / 2)
	w := make([]byte, 4)
	for i, d := range k.c.devs {
		for _, at := range []int64{0, count - 1} {
			if err := d.Download(w, k.recv[i]+gpu.Ptr(4*at)); err != nil {
				return 0, err
			}
			if got := math.Float32frombits(binary.LittleEndian.Uint32(w)); got != want {
				return 0, fmt.Errorf("nccl all-reduce gave a wrong sum: element %d on GPU %d is %g, want %g", at, d.ord, got, want)
			}
		}
	}
	return t, nil
}

// Close frees the buffers and destroys the communicators.
func (k *collective) Close() error {
	k.free()
	return k.c.Close()
}
