//go:build !kinf_cr_0_20

// controller-runtime v0.22 and later: what its controller.NewTypedUnmanaged
// (name, TypedOptions{Reconciler: r}) returns, made the same way: every
// other option unset takes NewTypedUnmanaged's default, and it hands them
// to the internal controller.New.  The default queue hangs on
// UsePriorityQueue, unset: ptr.Deref(options.UsePriorityQueue,
// usePriorityQueue) with usePriorityQueue false in v0.22 (the rate-limited
// workqueue, DefaultTypedControllerRateLimiter) and true from v0.23
// (priorityqueue.New with a per-item exponential limiter, 5ms..1000s);
// queue_*.go hold that constant per release.
//
// Why not call NewTypedUnmanaged itself: package controller imports
// package manager (for NewTyped), and with it the webhook server, whose
// module gomodules.xyz/jsonpatch/v2 v2.4.0 has no mirror here (the
// snapshot of github.com/gomodules/jsonpatch stops at v3.0.1 and v2.2.0),
// so ./build could not stay offline.  The internal package is importable
// because the program is built inside controller-runtime's own tree.

package main

import (
	"context"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/util/workqueue"

	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	ctrl "sigs.k8s.io/controller-runtime/pkg/internal/controller"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

type peerController interface {
	Watch(src source.Source) error
	Start(ctx context.Context) error
}

func newController(name string, r reconcile.Reconciler, workers int) peerController {
	log := logr.Discard() // options.Logger, unset, with its values
	var rl workqueue.TypedRateLimiter[reconcile.Request]
	if usePriorityQueue {
		rl = workqueue.NewTypedItemExponentialFailureRateLimiter[reconcile.Request](5*time.Millisecond, 1000*time.Second)
	} else {
		rl = workqueue.DefaultTypedControllerRateLimiter[reconcile.Request]()
	}
	newQueue := func(controllerName string, rateLimiter workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
		if usePriorityQueue {
			return priorityqueue.New(controllerName, func(o *priorityqueue.Opts[reconcile.Request]) {
				o.Log = log.WithValues("controller", controllerName)
				o.RateLimiter = rateLimiter
			})
		}
		return workqueue.NewTypedRateLimitingQueueWithConfig(rateLimiter,
			workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: controllerName})
	}
	return ctrl.New[reconcile.Request](ctrl.Options[reconcile.Request]{
		Do:                      r,
		RateLimiter:             rl,
		NewQueue:                newQueue,
		MaxConcurrentReconciles: workers,
		CacheSyncTimeout:        2 * time.Minute,
		Name:                    name,
		LogConstructor:          func(*reconcile.Request) logr.Logger { return log },
	})
}
