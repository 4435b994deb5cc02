// Command controller-peer is the oracle of `kinf watch --controller`: a real
// controller-runtime controller on one resource, with what its release's
// controller.NewTypedUnmanaged fills in when no option but the Reconciler
// is set (newController: ctl_0_20.go for v0.20, ctl.go and queue_*.go
// after it; the one part whose API differs between releases), one worker
// (--workers N: MaxConcurrentReconciles, as the option sets it),
// handler.EnqueueRequestForObject and the predicates --predicate names, in
// the syntax of kinf's --predicate (a comma list of terms ANDed, as the
// builder's WithPredicates ANDs them; a term one predicate or several
// joined by '|', predicate.Or): generation (GenerationChangedPredicate),
// resource-version, labels, annotations.  Its Reconciler prints one NDJSON line per
// Reconcile: the request's key, the resourceVersion it read from the
// cache, the outcome it is about to return and when it started; then it
// sleeps --reconcile-time and returns that outcome.  ./record keeps what
// it did as the goldens; tests/37-controller.bats runs kinf on the same
// scripts and compares (./compare).
//
// ./build builds it inside controller-runtime's own tree (pkg/kinfpeer),
// once per release (0.20.4, 0.22.4, 0.23.3, 0.24.1), each on its
// client-go, with the build tag kinf_cr_0_20 or kinf_cr_0_22 for those two.
//
// --outcome SPEC (repeatable) scripts what the Reconciles return, in the
// syntax of kinf's --reconcile-outcome:
//
//	SPEC     := TARGET '=' OUTCOMES
//	TARGET   := '*' | NS/NAME | NS/NAME@RV
//	OUTCOMES := OUTCOME['*'N] (',' OUTCOME['*'N])*   (a bare trailing '*': for ever)
//	OUTCOME  := success | error | terminal | requeue | requeue-after:DURATION
//
// A Reconcile takes the next outcome of the first rule that applies and
// still has one left, trying NS/NAME@RV rules (RV: the resourceVersion it
// read), then NS/NAME, then '*'.  A '*' rule's position is counted per
// key, the others' per rule.  None left: success.
//
// DESIGN: controller-runtime runs MaxConcurrentReconciles workers (one, the
// default), each calling Reconcile from its own goroutine; a mutex guards
// the rules and stdout all the same.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"

	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"
)

// record is one Reconcile: the members of kinf's ReconcileStart record,
// the result its ReconcileDone will carry, and "t", ms since the process
// started (monotonic).
type record struct {
	Type                string  `json:"type"`
	Reconcile           int     `json:"reconcile"`
	Key                 string  `json:"key"`
	ReadResourceVersion *string `json:"readResourceVersion"`
	Result              string  `json:"result"`
	T                   float64 `json:"t"`
}

type outcome struct {
	result string // success, error, terminal, requeue, requeue-after
	after  time.Duration
}

type step struct {
	o     outcome
	times int // 0: for ever
}

type rule struct {
	key, rv string // key "*": every key; rv "": any
	steps   []step
	pos     int            // NS/NAME and NS/NAME@RV rules
	perKey  map[string]int // '*' rules
}

// at returns the outcome at position p, or false past the last.
func (r *rule) at(p int) (outcome, bool) {
	for _, s := range r.steps {
		if s.times == 0 {
			return s.o, true
		}
		if p < s.times {
			return s.o, true
		}
		p -= s.times
	}
	return outcome{}, false
}

// parsePredicates reads kinf's --predicate syntax into what the Watch is given.
func parsePredicates(spec string) ([]predicate.Predicate, error) {
	var out []predicate.Predicate
	if spec == "" {
		return nil, nil
	}
	for _, term := range strings.Split(spec, ",") {
		var or []predicate.Predicate
		for _, name := range strings.Split(term, "|") {
			switch name {
			case "generation":
				or = append(or, predicate.GenerationChangedPredicate{})
			case "resource-version":
				or = append(or, predicate.ResourceVersionChangedPredicate{})
			case "labels":
				or = append(or, predicate.LabelChangedPredicate{})
			case "annotations":
				or = append(or, predicate.AnnotationChangedPredicate{})
			default:
				return nil, fmt.Errorf("unknown predicate %q", name)
			}
		}
		if len(or) == 1 {
			out = append(out, or[0])
		} else {
			out = append(out, predicate.Or(or...))
		}
	}
	return out, nil
}

func parseOutcome(s string) (outcome, error) {
	switch s {
	case "success", "error", "terminal", "requeue":
		return outcome{result: s}, nil
	}
	if d, ok := strings.CutPrefix(s, "requeue-after:"); ok {
		after, err := time.ParseDuration(d)
		if err != nil || after <= 0 {
			return outcome{}, fmt.Errorf("bad duration %q", d)
		}
		return outcome{result: "requeue-after", after: after}, nil
	}
	return outcome{}, fmt.Errorf("unknown outcome %q", s)
}

func parseRule(spec string) (*rule, error) {
	target, outs, ok := strings.Cut(spec, "=")
	if !ok || target == "" || outs == "" {
		return nil, fmt.Errorf("%q: not TARGET=OUTCOMES", spec)
	}
	r := &rule{key: target, perKey: map[string]int{}}
	if target != "*" {
		if k, rv, ok := strings.Cut(target, "@"); ok {
			if rv == "" {
				return nil, fmt.Errorf("%q: an empty resourceVersion", spec)
			}
			r.key, r.rv = k, rv
		}
		if ns, name, ok := strings.Cut(r.key, "/"); !ok || ns == "" || name == "" {
			return nil, fmt.Errorf("%q: the target is not *, NS/NAME or NS/NAME@RV", spec)
		}
	}
	items := strings.Split(outs, ",")
	for i, it := range items {
		s := step{times: 1}
		if o, n, ok := strings.Cut(it, "*"); ok {
			it = o
			if n == "" {
				if i != len(items)-1 {
					return nil, fmt.Errorf("%q: '%s*' (for ever) is not the last", spec, o)
				}
				s.times = 0
			} else if v, err := strconv.Atoi(n); err != nil || v < 1 {
				return nil, fmt.Errorf("%q: bad count %q", spec, n)
			} else {
				s.times = v
			}
		}
		o, err := parseOutcome(it)
		if err != nil {
			return nil, fmt.Errorf("%q: %v", spec, err)
		}
		s.o = o
		r.steps = append(r.steps, s)
	}
	return r, nil
}

type rules []*rule

func (f *rules) String() string { return "" }
func (f *rules) Set(s string) error {
	r, err := parseRule(s)
	if err != nil {
		return err
	}
	*f = append(*f, r)
	return nil
}

// next takes the outcome of a Reconcile of key that read rv (nil: none).
func (f rules) next(key string, rv *string) outcome {
	for pass := 0; pass < 3; pass++ {
		for _, r := range f {
			switch pass {
			case 0:
				if rv == nil || r.rv == "" || r.key != key || r.rv != *rv {
					continue
				}
			case 1:
				if r.rv != "" || r.key != key {
					continue
				}
			case 2:
				if r.key != "*" {
					continue
				}
			}
			if r.key == "*" {
				if o, ok := r.at(r.perKey[key]); ok {
					r.perKey[key]++
					return o
				}
			} else if o, ok := r.at(r.pos); ok {
				r.pos++
				return o
			}
		}
	}
	return outcome{result: "success"}
}

type reconciler struct {
	mu    sync.Mutex
	enc   *json.Encoder
	n     int
	c     client.Reader
	took  time.Duration
	rules rules
	start time.Time
}

func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	t := time.Since(r.start)
	var pod corev1.Pod
	rec := record{Type: "ReconcileStart", Key: req.String(),
		T: float64(t.Microseconds()) / 1000}
	if err := r.c.Get(ctx, req.NamespacedName, &pod); err == nil {
		rv := pod.ResourceVersion
		rec.ReadResourceVersion = &rv
	} else if !apierrors.IsNotFound(err) {
		return reconcile.Result{}, err
	}
	r.mu.Lock()
	o := r.rules.next(rec.Key, rec.ReadResourceVersion)
	r.n++
	rec.Reconcile = r.n
	rec.Result = o.result
	if err := r.enc.Encode(rec); err != nil {
		fmt.Fprintf(os.Stderr, "controller-peer: %v\n", err)
		os.Exit(1)
	}
	r.mu.Unlock()
	time.Sleep(r.took)
	switch o.result {
	case "error":
		return reconcile.Result{}, errors.New("scripted error")
	case "terminal":
		return reconcile.Result{}, reconcile.TerminalError(errors.New("scripted terminal error"))
	case "requeue":
		return reconcile.Result{Requeue: true}, nil
	case "requeue-after":
		return reconcile.Result{RequeueAfter: o.after}, nil
	}
	return reconcile.Result{}, nil
}

func die(code int, err error) {
	fmt.Fprintf(os.Stderr, "controller-peer: %v\n", err)
	os.Exit(code)
}

func main() {
	start := time.Now()
	var rs rules
	kubeconfig := flag.String("kubeconfig", "", "kubeconfig file (its current context)")
	namespace := flag.String("namespace", "default", "the namespace of the pods")
	pred := flag.String("predicate", "", "predicates, as kinf's --predicate: generation, resource-version, labels, annotations; a,b ANDs, a|b ORs; empty: none")
	took := flag.Duration("reconcile-time", 0, "how long each Reconcile takes")
	workers := flag.Int("workers", 1, "MaxConcurrentReconciles (one: what NewTypedUnmanaged fills in)")
	flag.Var(&rs, "outcome", "TARGET=OUTCOMES: what Reconciles return (repeatable)")
	flag.Parse()
	if flag.NArg() > 0 {
		die(2, fmt.Errorf("unexpected argument %q", flag.Arg(0)))
	}
	logf.SetLogger(logr.Discard())

	cfg, err := clientcmd.BuildConfigFromFlags("", *kubeconfig)
	if err != nil {
		die(2, err)
	}
	c, err := cache.New(cfg, cache.Options{Scheme: scheme.Scheme,
		DefaultNamespaces: map[string]cache.Config{*namespace: {}}})
	if err != nil {
		die(2, err)
	}
	preds, err := parsePredicates(*pred)
	if err != nil {
		die(2, err)
	}
	r := &reconciler{enc: json.NewEncoder(os.Stdout), c: c, took: *took, rules: rs, start: start}
	ctl := newController("kinf-peer", r, *workers)
	if err := ctl.Watch(source.Kind[client.Object](c, &corev1.Pod{},
		&handler.EnqueueRequestForObject{}, preds...)); err != nil {
		die(2, err)
	}
	ctx, cancel := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer cancel()
	// As a manager runs them: the cache first, the controller once it
	// has started (its Kind source then gets a started informer, whose
	// initial adds it hands the new handler from the Indexer, in map
	// order); the controller's Start waits for its source's sync.
	go func() {
		if err := c.Start(ctx); err != nil {
			fmt.Fprintf(os.Stderr, "controller-peer: cache: %v\n", err)
		}
	}()
	if !c.WaitForCacheSync(ctx) {
		die(1, errors.New("the cache did not start"))
	}
	if err := ctl.Start(ctx); err != nil && ctx.Err() == nil {
		die(1, err)
	}
}
