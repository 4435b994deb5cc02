"""kube-sim: a simulated kube-apiserver (v1.28 wire protocol) for kinf's tests."""
