package advise

import (
	"fmt"
	"strings"

	"github.com/gpuscout/gpuscout/internal/catalog"
)

// Accelerator choices (--accelerators).
const (
	AcceleratorsCUDA = "cuda" // NVIDIA GPUs only: the stack training code is written for
	AcceleratorsAny  = "any"  // also AWS Neuron (Trainium, Inferentia), AMD ROCm, Intel Gaudi
)

// accelerators is the request's choice, or the scenario's default: any
// where the scenario prefers a non-CUDA accelerator (inference on
// Inferentia, as the article suggests), else cuda.
func (r *Request) accelerators() string {
	if r.Accelerators != "" {
		return r.Accelerators
	}
	if r.Scenario != nil && len(r.Scenario.PreferAccelerators) > 0 {
		return AcceleratorsAny
	}
	return AcceleratorsCUDA
}

// AcceleratorChoice is the --accelerators choice in force: the request's or the scenario's default.
func (r *Request) AcceleratorChoice() string { return r.accelerators() }

func (r *Request) validateAccelerators() error {
	switch r.Accelerators {
	case "", AcceleratorsCUDA, AcceleratorsAny:
		return nil
	}
	return fmt.Errorf("--accelerators %q: want cuda or any", r.Accelerators)
}

// softwareStack names the software stack a GPU's vendor (gpus.yaml vendor)
// needs, and the ecosystem risk of moving CUDA code to it ("" for CUDA).
func softwareStack(g *catalog.GPU) (stack, risk string) {
	switch strings.ToLower(g.Vendor) {
	case "nvidia":
		return "CUDA", ""
	case "aws":
		return "AWS Neuron", "AWS Neuron SDK: the model must compile with neuronx (torch-neuronx); unsupported operators and dynamic shapes fail or fall back, so budget time to port and validate"
	case "amd":
		return "ROCm", "ROCm: needs ROCm builds of PyTorch and of every CUDA extension (flash-attention, fused kernels); check each library supports ROCm before planning on it"
	case "intel":
		return "Intel Gaudi", "Intel Gaudi: runs through the Gaudi software stack (SynapseAI, the habana PyTorch bridge); CUDA kernels and many extensions do not port"
	}
	return "unknown (" + g.Vendor + ")", fmt.Sprintf("%s accelerators: the software stack is not CUDA; check framework support", g.Vendor)
}

// stackExcludes says why an offering's accelerator is left out under the
// request's --accelerators choice, or "".
func stackExcludes(req *Request, g *catalog.GPU) string {
	stack, _ := softwareStack(g)
	if stack == "CUDA" || req.accelerators() == AcceleratorsAny {
		return ""
	}
	return fmt.Sprintf("%s runs on %s, not CUDA; %s considers CUDA GPUs unless --accelerators any", g.Name, stack, req.Scenario.Name)
}
