package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/gpuscout/gpuscout/internal/gpu"
)

// probeChoice is one size's entry in the probe process's output.
type probeChoice struct {
	Algorithm string `json:"algorithm"`
	Protocol  string `json:"protocol"`
	Reason    string `json:"reason,omitempty"`
}

// WriteNCCLChoices writes what the probe process (`gpuscout bench
// nccl-choice`) learnt, as one line of JSON: {"8": {"algorithm": "RING",
// "protocol": "LL"}, "1048576": {"algorithm": "unknown", "protocol":
// "unknown", "reason": "…"}}, keyed by the size in bytes.
func WriteNCCLChoices(w io.Writer, choices map[int64]gpu.Choice) error {
	out := map[string]probeChoice{}
	for size, c := range choices {
		c = choiceOf(c)
		out[strconv.FormatInt(size, 10)] = probeChoice{Algorithm: c.Algorithm, Protocol: c.Protocol, Reason: c.Why}
	}
	b, err := json.Marshal(out)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// ReadNCCLChoices reads WriteNCCLChoices's line from the probe process's
// standard output: the last line that starts with "{" (NCCL itself writes
// its log there where the user set NCCL_DEBUG without NCCL_DEBUG_FILE).
func ReadNCCLChoices(stdout []byte) (map[int64]gpu.Choice, error) {
	var line []byte
	for _, l := range bytes.Split(stdout, []byte("\n")) {
		if l = bytes.TrimSpace(l); bytes.HasPrefix(l, []byte("{")) {
			line = l
		}
	}
	if line == nil {
		return nil, errors.New("no JSON line in its output")
	}
	var in map[string]probeChoice
	if err := json.Unmarshal(line, &in); err != nil {
		return nil, fmt.Errorf("its output %q: %w", line, err)
	}
	out := map[int64]gpu.Choice{}
	for k, c := range in {
		size, err := strconv.ParseInt(k, 10, 64)
		if err != nil || size < 1 {
			return nil, fmt.Errorf("its output has a size %q", k)
		}
		out[size] = choiceOf(gpu.Choice{Algorithm: c.Algorithm, Protocol: c.Protocol, Why: c.Reason})
		if !out[size].Known() && out[size].Why == "" {
			out[size] = gpu.UnknownChoice("the probe process gave no reason")
		}
	}
	return out, nil
}
