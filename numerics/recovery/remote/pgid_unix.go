//go:build unix

package remote

import (
	"os/exec"
	"syscall"
)

// ownGroup starts the oracle in its own process group, so that a Ctrl-C
// at the terminal reaches the learner only: it then stops the oracle
// itself, after reading the answers already on their way.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}
