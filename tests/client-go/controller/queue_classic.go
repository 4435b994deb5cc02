//go:build kinf_cr_0_22

package main

// usePriorityQueue is controller-runtime v0.22's default for an unset
// UsePriorityQueue: ptr.Deref(options.UsePriorityQueue, false).
const usePriorityQueue = false
