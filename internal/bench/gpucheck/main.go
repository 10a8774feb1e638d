// Command gpucheck is the non-GPU part of scripts/gpu-check.sh (go run
// ./internal/bench/gpucheck):
//
//	gpucheck sizes BENCH.json
//	    prints "n=8192 copy_bytes=2147483648 host_bytes=1073741824": the
//	    sizes gpuscout measured gpu0 at, for PyTorch to use
//	gpucheck table --bench B.json --sustain S.json --torch T.json
//	    --torch-sustain TS.json --smi-gpuscout A.csv --smi-torch P.csv [--dtype bf16]
//	    prints the table gpuscout | PyTorch | ratio
//
// A file that is missing or unreadable leaves its column empty ("-") and is
// named on stderr; only a bad command line or an unreadable BENCH.json for
// sizes is an error (exit 2 and 1).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gpuscout/gpuscout/internal/benchreport"
)

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintln(stderr, "usage: gpucheck sizes BENCH.json | gpucheck table --bench ... (see the package doc)")
		return 2
	}
	switch args[0] {
	case "sizes":
		if len(args) != 2 {
			fmt.Fprintln(stderr, "usage: gpucheck sizes BENCH.json")
			return 2
		}
		doc, err := readDoc(args[1])
		if err != nil {
			fmt.Fprintln(stderr, "gpucheck:", err)
			return 1
		}
		s, err := SizesFrom(doc, "gpu0")
		if err != nil {
			fmt.Fprintf(stderr, "gpucheck: %s: %v\n", args[1], err)
			return 1
		}
		fmt.Fprintf(stdout, "n=%d copy_bytes=%d host_bytes=%d\n", s.GemmN, s.CopyBytes, s.HostBytes)
		return 0
	case "table":
		fs := flag.NewFlagSet("table", flag.ContinueOnError)
		fs.SetOutput(stderr)
		bench := fs.String("bench", "", "gpuscout's report of GEMM and copies")
		sustain := fs.String("sustain", "", "gpuscout's report of the sustained run")
		torch := fs.String("torch", "", "the PyTorch reference's output")
		torchSustain := fs.String("torch-sustain", "", "the PyTorch reference's sustained output")
		smiOurs := fs.String("smi-gpuscout", "", "nvidia-smi's samples during gpuscout's sustained run")
		smiTorch := fs.String("smi-torch", "", "nvidia-smi's samples during PyTorch's sustained run")
		dtype := fs.String("dtype", "bf16", "the sustained run's GEMM type")
		if err := fs.Parse(args[1:]); err != nil {
			return 2
		}
		in := Input{Device: "gpu0", SustainDType: *dtype}
		warn := func(path string, err error) {
			if path != "" && err != nil {
				fmt.Fprintf(stderr, "gpucheck: %s: %v (its column is empty)\n", path, err)
			}
		}
		var err error
		in.Bench, err = readDoc(*bench)
		warn(*bench, err)
		in.Sustain, err = readDoc(*sustain)
		warn(*sustain, err)
		in.Torch, err = readTorch(*torch)
		warn(*torch, err)
		in.TorchSustain, err = readTorch(*torchSustain)
		warn(*torchSustain, err)
		in.SMIGPUScout, err = readSMI(*smiOurs)
		warn(*smiOurs, err)
		in.SMITorch, err = readSMI(*smiTorch)
		warn(*smiTorch, err)
		if err := Write(stdout, Rows(in)); err != nil {
			fmt.Fprintln(stderr, "gpucheck:", err)
			return 1
		}
		return 0
	}
	fmt.Fprintf(stderr, "gpucheck: unknown command %q: want sizes or table\n", args[0])
	return 2
}

var errNone = errors.New("not given")

// readFile opens path and reads it with parse; errNone where no path was
// given (that column stays empty without a warning).
func readFile[T any](path string, parse func(io.Reader) (T, error)) (T, error) {
	var zero T
	if path == "" {
		return zero, errNone
	}
	f, err := os.Open(path)
	if err != nil {
		return zero, err
	}
	defer f.Close()
	return parse(f)
}

func readDoc(path string) (*benchreport.Document, error) {
	return readFile(path, benchreport.DecodeDocument)
}

func readTorch(path string) (*Torch, error) { return readFile(path, ReadTorch) }

func readSMI(path string) (*Telemetry, error) {
	return readFile(path, func(r io.Reader) (*Telemetry, error) {
		t, err := SummarizeSMI(r)
		if err != nil {
			return nil, err
		}
		return &t, nil
	})
}
