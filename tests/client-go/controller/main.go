// Command controller-peer is the oracle of `kinf watch --controller`: a real
// controller-runtime controller (its internal Controller, as
// controller.NewTypedUnmanaged builds it, without a manager) on one
// resource, whose Reconciler prints one NDJSON line per Reconcile: the
// request's key and the resourceVersion it read from the cache, then
// sleeps --reconcile-time.  ./record keeps what it did as the goldens;
// tests/37-controller.bats runs kinf on the same scripts and compares.
//
// It is built inside controller-runtime's own tree (its internal package
// is importable only from there) by ./build.
//
// DESIGN: controller-runtime runs MaxConcurrentReconciles workers (one here,
// the default), each calling Reconcile from its own goroutine; a mutex
// guards stdout all the same.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	ctrl "sigs.k8s.io/controller-runtime/pkg/internal/controller"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// record is one Reconcile, in the members of kinf's ReconcileStart record.
type record struct {
	Type                string  `json:"type"`
	Reconcile           int     `json:"reconcile"`
	Key                 string  `json:"key"`
	ReadResourceVersion *string `json:"readResourceVersion"`
}

type reconciler struct {
	mu   sync.Mutex
	enc  *json.Encoder
	n    int
	c    client.Reader
	took time.Duration
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	var pod corev1.Pod
	rec := record{Type: "ReconcileStart", Key: req.String()}
	if err := r.c.Get(ctx, req.NamespacedName, &pod); err == nil {
		rec.ReadResourceVersion = ptr.To(pod.ResourceVersion)
	} else if !apierrors.IsNotFound(err) {
		return reconcile.Result{}, err
	}
	r.mu.Lock()
	r.n++
	rec.Reconcile = r.n
	if err := r.enc.Encode(rec); err != nil {
		fmt.Fprintf(os.Stderr, "controller-peer: %v\n", err)
		os.Exit(1)
	}
	r.mu.Unlock()
	time.Sleep(r.took)
	return reconcile.Result{}, nil
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file (its current context)")
	namespace := flag.String("namespace", "default", "the namespace of the pods")
	pred := flag.String("predicate", "", "generation: GenerationChangedPredicate; empty: none")
	took := flag.Duration("reconcile-time", 0, "how long each Reconcile takes")
	flag.Parse()

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "controller-peer: %v\n", err)
		os.Exit(2)
	}
	c, err := cache.New(cfg, cache.Options{Scheme: scheme.Scheme,
		DefaultNamespaces: map[string]cache.Config{*namespace: {}}})
	if err != nil {
		fmt.Fprintf(os.Stderr, "controller-peer: %v\n", err)
		os.Exit(2)
	}
	var preds []predicate.Predicate
	switch *pred {
	case "":
	case "generation":
		preds = append(preds, predicate.GenerationChangedPredicate{})
	default:
		fmt.Fprintf(os.Stderr, "controller-peer: unknown predicate %q\n", *pred)
		os.Exit(2)
	}
	r := &reconciler{enc: json.NewEncoder(os.Stdout), c: c, took: *took}
	// what controller.NewTypedUnmanaged fills in for a manager's defaults
	ctl := &ctrl.Controller[reconcile.Request]{
		Name:                    "kinf-peer",
		Do:                      r,
		MaxConcurrentReconciles: 1,
		CacheSyncTimeout:        2 * time.Minute,
		RateLimiter:             workqueue.DefaultTypedControllerRateLimiter[reconcile.Request](),
		NewQueue: func(name string, rl workqueue.TypedRateLimiter[reconcile.Request]) workqueue.TypedRateLimitingInterface[reconcile.Request] {
			return workqueue.NewTypedRateLimitingQueueWithConfig(rl,
				workqueue.TypedRateLimitingQueueConfig[reconcile.Request]{Name: name})
		},
		LogConstructor: func(*reconcile.Request) logr.Logger { return logr.Discard() },
		RecoverPanic:   ptr.To(true),
		LeaderElected:  ptr.To(false),
	}
	if err := ctl.Watch(source.Kind[client.Object](c, &corev1.Pod{},
		&handler.EnqueueRequestForObject{}, preds...)); err != nil {
		fmt.Fprintf(os.Stderr, "controller-peer: %v\n", err)
		os.Exit(2)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	go func() {
		if err := c.Start(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "controller-peer: cache: %v\n", err)
		}
	}()
	if err := ctl.Start(ctx); err != nil && ctx.Err() == nil {
		fmt.Fprintf(os.Stderr, "controller-peer: %v\n", err)
		os.Exit(1)
	}
}
