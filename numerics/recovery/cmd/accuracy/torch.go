package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"headlab/numerics/attention"
	"headlab/numerics/layerfile"
	"headlab/numerics/recovery"
)

// python is Debian's interpreter, which has python3-torch.
const python = "/usr/bin/python3"

// torchTable writes, for each cell (H[i], D[i]), how many of seeds torch
// nn.MultiheadAttention layers (numerics/layerfile/testdata/torchlayer.py:
// initialised or trained 300 Adam steps, without or with biases) the
// recover command resolves through -layer FILE -maxerror 1e-9 in each
// mode, in float64 (calibrated, biases learned where the file has them),
// every resolved one within 1e-8 of the file's; and in brackets the
// reference layers' (attention.Random, the same seeds, saved and read the
// same way). recoverBin is the recover command, built.
func torchTable(w io.Writer, H, D []int, M []recovery.Mode, seeds int, recoverBin, root string) error {
	fmt.Fprintf(w, "Layers of %d resolved, each within 1e-8 of its file's; in brackets the reference layers'.\n\n", seeds)
	head, rule := "| (H, d) | layers | biases |", "|---|---|---|"
	for _, m := range M {
		head += fmt.Sprintf(" %v |", m)
		rule += "---|"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for i := range min(len(H), len(D)) {
		h, d := H[i], D[i]
		dir, err := os.MkdirTemp("", "accuracy-torch")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		var ref []string
		for s := 1; s <= seeds; s++ {
			var buf bytes.Buffer
			if err := layerfile.Write(&buf, layerfile.Safetensors, layerfile.Model{Layer: attention.Random(h, d, uint64(s))}); err != nil {
				return err
			}
			p := filepath.Join(dir, fmt.Sprintf("ref%d.safetensors", s))
			if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
				return err
			}
			ref = append(ref, p)
		}
		refRate := map[recovery.Mode]int{}
		for _, m := range M {
			if refRate[m], err = layerRate(recoverBin, ref, m); err != nil {
				return err
			}
		}
		for _, train := range []int{0, 300} {
			for _, bias := range []bool{false, true} {
				out := filepath.Join(dir, fmt.Sprintf("torch-%d-%v", train, bias))
				args := []string{filepath.Join(root, "numerics/layerfile/testdata/torchlayer.py"), "--out", out, "--heads", strconv.Itoa(h),
					"--width", strconv.Itoa(d), "--seed", "1", "--count", strconv.Itoa(seeds), "--train", strconv.Itoa(train), "--sequences", "1"}
				if bias {
					args = append(args, "--bias")
				}
				if b, err := exec.Command(python, args...).CombinedOutput(); err != nil {
					return fmt.Errorf("torchlayer.py: %v\n%s", err, b)
				}
				var files []string
				for s := 1; s <= seeds; s++ {
					if seeds == 1 {
						files = append(files, filepath.Join(out, "layer.npz")) // one layer: no seed folder
						break
					}
					files = append(files, filepath.Join(out, strconv.Itoa(s), "layer.npz"))
				}
				row := fmt.Sprintf("| (%d, %d) | %s | %s |", h, d, map[bool]string{false: "initialised", true: "trained"}[train > 0], map[bool]string{false: "no", true: "yes"}[bias])
				for _, m := range M {
					n, err := layerRate(recoverBin, files, m)
					if err != nil {
						return err
					}
					row += fmt.Sprintf(" %d (%d) |", n, refRate[m])
				}
				fmt.Fprintln(w, row)
			}
		}
	}
	return nil
}

// layerRate recovers every file through recoverBin -layer in mode m (the
// learner's seed the file's index + 1) and returns how many resolved. A
// layer returned farther than 1e-8 from its file's is an error: the
// command's -maxerror 1e-9 promises better.
func layerRate(recoverBin string, files []string, m recovery.Mode) (int, error) {
	ok := 0
	for i, f := range files {
		out := f + "." + m.String() + ".json"
		var stderr bytes.Buffer
		cmd := exec.Command(recoverBin, "-layer", f, "-mode", m.String(), "-seed", strconv.Itoa(i+1),
			"-maxerror", "1e-9", "-progress", "none", "-o", out)
		cmd.Stderr = &stderr
		err := cmd.Run()
		var exit *exec.ExitError
		switch {
		case errors.As(err, &exit) && exit.ExitCode() == 1:
			continue // not resolved: an error, as it must be
		case err != nil:
			return 0, fmt.Errorf("recover -layer %s: %v: %s", f, err, strings.TrimSpace(stderr.String()))
		}
		var res struct {
			Error *float64 `json:"error"`
		}
		data, err := os.ReadFile(out)
		if err == nil {
			err = json.Unmarshal(data, &res)
		}
		if err != nil {
			return 0, err
		}
		if res.Error == nil || !(*res.Error <= 1e-8) {
			return 0, fmt.Errorf("recover -layer %s, %v: resolved with error %v against the file's", f, m, res.Error)
		}
		ok++
	}
	return ok, nil
}

// moduleRoot returns the folder of the module's go.mod (go env GOMOD).
func moduleRoot() (string, error) {
	b, err := exec.Command("go", "env", "GOMOD").Output()
	gomod := strings.TrimSpace(string(b))
	if err != nil || gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("no go.mod for the working folder (%v): run from the repository", err)
	}
	return filepath.Dir(gomod), nil
}

// buildRecover builds the recover command into dir and returns its path.
func buildRecover(root, dir string) (string, error) {
	bin := filepath.Join(dir, "recover")
	cmd := exec.Command("go", "build", "-o", bin, "./numerics/recovery/cmd/recover")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build recover: %v\n%s", err, b)
	}
	return bin, nil
}
