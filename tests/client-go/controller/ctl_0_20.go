//go:build kinf_cr_0_20

// controller-runtime v0.20: what its controller.NewTypedUnmanaged returns
// for TypedOptions{Reconciler: r} and a manager made with default Options
// (a zero config.Controller: UsePriorityQueue, RecoverPanic and
// NeedLeaderElection nil, no MaxConcurrentReconciles or CacheSyncTimeout),
// field for field: its internal Controller (a struct literal: v0.20 has no
// controller.New) with --workers workers (one unless told), a 2 min sync timeout,
// DefaultTypedControllerRateLimiter and NewTypedRateLimitingQueueWithConfig,
// the rate-limited workqueue.  Why not call NewTypedUnmanaged itself: see
// ctl.go.

package main

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/util/workqueue"

	ctrl "sigs.k8s.io/controller-runtime/pkg/internal/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

type peerController interface {
	Watch(src source.Source) error
	Start(ctx context.Context) error
}

func newController(name string, r reconcile.Reconciler, workers int) peerController {
	return &ctrl.Controller[reconcile.Request]{
		Do:          r,
		RateLimiter: workqueue.DefaultTypedControllerRateLimiter[reconcile.Request](),
		NewQueue: func(controllerName string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
			return workqueue.NewTypedRateLimitingQueueWithConfig(rl,
				workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: controllerName})
		},
		MaxConcurrentReconciles: workers,
		CacheSyncTimeout:        2 * time.Minute,
		Name:                    name,
		LogConstructor:          func(*reconcile.Request) logr.Logger { return logr.Discard() },
	}
}
