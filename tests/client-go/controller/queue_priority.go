//go:build !kinf_cr_0_20 && !kinf_cr_0_22

package main

// usePriorityQueue is controller-runtime v0.23's and v0.24's default for
// an unset UsePriorityQueue: ptr.Deref(options.UsePriorityQueue, true).
const usePriorityQueue = true
