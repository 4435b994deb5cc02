// Command peer is kinf's test oracle: the real client-go informer, run against
// a server, reporting every event handler call as one NDJSON line in the
// members kinf's `watch -o json` uses, so that the two can be compared line
// by line (tests/client-go/compare).
//
// It builds against every client-go from v0.27 on (OnAdd's isInInitialList
// appeared there) and sets no feature gate: each version runs with its own
// defaults, as a controller that does not touch KUBE_FEATURE_* does.
//
// The informer is the one a controller gets from an informer factory: a
// SharedIndexInformer over a ListWatch of one resource, with the namespace
// index, through the dynamic client (the peer then needs no generated type
// per resource).  With --typed (pods only) it is the typed informer of a
// clientset's SharedInformerFactory instead, whose requests differ: the
// clientset's content type (protobuf, where its version asks for it) and a
// timeout= parameter on its watches.
//
// DESIGN: client-go calls the handler from one goroutine per listener; the
// peer has one listener, so the lines come out in the order client-go made
// the calls.  A mutex still guards stdout in case a version ever delivers
// from more than one goroutine.
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

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
)

// record is one handler call; the member names are kinf's (man kinf, JSON OUTPUT).
type record struct {
	Handler            string `json:"handler"`
	Key                string `json:"key"`
	ResourceVersion    string `json:"resourceVersion"`
	OldResourceVersion string `json:"oldResourceVersion,omitempty"`
	InitialList        bool   `json:"initialList"`
	Unchanged          bool   `json:"unchanged"`
	Tombstone          bool   `json:"tombstone"`
}

type printer struct {
	mu  sync.Mutex
	enc *json.Encoder
}

func (p *printer) emit(r record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.enc.Encode(r); err != nil {
		fmt.Fprintf(os.Stderr, "peer: %v\n", err)
		os.Exit(1)
	}
}

func rvOf(obj interface{}) string {
	if m, err := meta.Accessor(obj); err == nil {
		return m.GetResourceVersion()
	}
	return ""
}

func keyOf(obj interface{}) string {
	k, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
	if err != nil {
		return "<" + err.Error() + ">"
	}
	return k
}

// handler implements cache.ResourceEventHandler.
type handler struct{ p *printer }

func (h handler) OnAdd(obj interface{}, isInInitialList bool) {
	h.p.emit(record{Handler: "OnAdd", Key: keyOf(obj), ResourceVersion: rvOf(obj), InitialList: isInInitialList})
}

func (h handler) OnUpdate(oldObj, newObj interface{}) {
	oldRV, newRV := rvOf(oldObj), rvOf(newObj)
	h.p.emit(record{Handler: "OnUpdate", Key: keyOf(newObj), ResourceVersion: newRV,
		OldResourceVersion: oldRV, Unchanged: oldRV == newRV})
}

func (h handler) OnDelete(obj interface{}) {
	r := record{Handler: "OnDelete", Key: keyOf(obj)}
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		r.Tombstone = true
		obj = t.Obj
	}
	r.ResourceVersion = rvOf(obj)
	h.p.emit(r)
}

func main() {
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file (its current context)")
	server := flag.String("server", "", "the server's URL, overriding the kubeconfig's")
	group := flag.String("group", "", "the resource's API group (empty: the core group)")
	version := flag.String("version", "v1", "the resource's API version")
	resource := flag.String("resource", "pods", "the resource, plural")
	namespace := flag.String("namespace", "", "one namespace (empty: all)")
	labelSel := flag.String("selector", "", "label selector")
	fieldSel := flag.String("field-selector", "", "field selector")
	resync := flag.Duration("resync", 0, "the informer's resync period (0: none)")
	typed := flag.Bool("typed", false, "a clientset's typed informer (pods only)")
	flag.Parse()

	cfg, err := clientcmd.BuildConfigFromFlags(*server, *kubeconfig)
	if err != nil {
		fmt.Fprintf(os.Stderr, "peer: %v\n", err)
		os.Exit(2)
	}
	// the tweak an informer factory applies with WithTweakListOptions
	tweak := func(o *metav1.ListOptions) {
		o.LabelSelector = *labelSel
		o.FieldSelector = *fieldSel
	}
	var inf cache.SharedIndexInformer
	if *typed {
		inf = typedInformer(cfg, *group, *version, *resource, *namespace, *resync, tweak)
	} else {
		inf = dynamicInformer(cfg, *group, *version, *resource, *namespace, *resync, tweak)
	}
	p := &printer{enc: json.NewEncoder(os.Stdout)}
	if _, err := inf.AddEventHandler(handler{p}); err != nil {
		fmt.Fprintf(os.Stderr, "peer: %v\n", err)
		os.Exit(2)
	}
	stop := make(chan struct{})
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	go func() { <-sig; close(stop) }()
	go inf.Run(stop)
	<-stop
	// the lines are written as the calls happen; nothing is buffered
	time.Sleep(10 * time.Millisecond)
}

// typedInformer: what informers.NewSharedInformerFactoryWithOptions hands a
// controller for pods, on a clientset made as kubernetes.NewForConfig makes it.
func typedInformer(cfg *rest.Config, group, version, resource, namespace string,
	resync time.Duration, tweak func(*metav1.ListOptions)) cache.SharedIndexInformer {
	if group != "" || version != "v1" || resource != "pods" {
		fmt.Fprintf(os.Stderr, "peer: --typed knows pods (v1) only\n")
		os.Exit(2)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "peer: %v\n", err)
		os.Exit(2)
	}
	f := informers.NewSharedInformerFactoryWithOptions(cs, resync,
		informers.WithNamespace(namespace), informers.WithTweakListOptions(tweak))
	return f.Core().V1().Pods().Informer()
}

func dynamicInformer(cfg *rest.Config, group, version, resource, namespace string,
	resync time.Duration, tweak func(*metav1.ListOptions)) cache.SharedIndexInformer {
	dc, err := dynamic.NewForConfig(cfg)
	if err != nil {
		fmt.Fprintf(os.Stderr, "peer: %v\n", err)
		os.Exit(2)
	}
	ri := dc.Resource(schema.GroupVersionResource{Group: group, Version: version, Resource: resource}).
		Namespace(namespace)
	lw := &cache.ListWatch{
		ListFunc: func(o metav1.ListOptions) (runtime.Object, error) {
			tweak(&o)
			return ri.List(context.TODO(), o)
		},
		WatchFunc: func(o metav1.ListOptions) (watch.Interface, error) {
			tweak(&o)
			return ri.Watch(context.TODO(), o)
		},
	}
	return cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, resync,
		cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
}
