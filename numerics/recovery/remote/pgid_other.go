//go:build !unix

package remote

import "os/exec"

// ownGroup does nothing where there are no process groups.
func ownGroup(cmd *exec.Cmd) {}
