package shed

import (
	"math"
	"runtime/metrics"
	"time"
)

// Signals are the server-wide measures of pressure, one sample.
type Signals struct {
	// SchedLatency is the 99th percentile of the time goroutines waited
	// to run since the last sample: Go's event-loop delay. A CPU-starved
	// process answers late whatever its handlers do.
	SchedLatency time.Duration
	// HeapFraction is the live heap over the memory limit (GOMEMLIMIT);
	// 0 without a limit. Near 1 the collector runs without pause.
	HeapFraction float64
	// GCFraction is the share of the process's CPU time spent collecting
	// garbage since the last sample.
	GCFraction float64
}

// Source gives the current signals; Sample is called once an interval,
// from one goroutine. RuntimeSource reads runtime/metrics; tests give a
// source of their own to force pressure.
type Source interface {
	Sample() Signals
}

// runtimeSource reads runtime/metrics, keeping the previous cumulative
// values to report what happened since.
type runtimeSource struct {
	samples   []metrics.Sample
	prevSched []uint64
	prevGC    float64
	prevTotal float64
}

const (
	mSched = iota
	mLive
	mLimit
	mGC
	mTotal
)

// RuntimeSource returns a Source reading runtime/metrics.
func RuntimeSource() Source {
	return &runtimeSource{samples: []metrics.Sample{
		mSched: {Name: "/sched/latencies:seconds"},
		mLive:  {Name: "/gc/heap/live:bytes"},
		mLimit: {Name: "/gc/gomemlimit:bytes"},
		mGC:    {Name: "/cpu/classes/gc/total:cpu-seconds"},
		mTotal: {Name: "/cpu/classes/total:cpu-seconds"},
	}}
}

func (r *runtimeSource) Sample() Signals {
	metrics.Read(r.samples)
	var s Signals
	if v := r.samples[mSched].Value; v.Kind() == metrics.KindFloat64Histogram {
		h := v.Float64Histogram()
		s.SchedLatency = p99(h, r.prevSched)
		r.prevSched = append(r.prevSched[:0], h.Counts...)
	}
	if r.samples[mLive].Value.Kind() == metrics.KindUint64 && r.samples[mLimit].Value.Kind() == metrics.KindUint64 {
		live, limit := r.samples[mLive].Value.Uint64(), r.samples[mLimit].Value.Uint64()
		if limit > 0 && limit < math.MaxInt64 {
			s.HeapFraction = float64(live) / float64(limit)
		}
	}
	if r.samples[mGC].Value.Kind() == metrics.KindFloat64 && r.samples[mTotal].Value.Kind() == metrics.KindFloat64 {
		gc, total := r.samples[mGC].Value.Float64(), r.samples[mTotal].Value.Float64()
		if d := total - r.prevTotal; d > 0 {
			s.GCFraction = (gc - r.prevGC) / d
		}
		r.prevGC, r.prevTotal = gc, total
	}
	return s
}

// p99 is the 99th percentile of the counts h gained since prev (the
// upper bound of the bucket it falls in).
func p99(h *metrics.Float64Histogram, prev []uint64) time.Duration {
	var n uint64
	delta := make([]uint64, len(h.Counts))
	for i, c := range h.Counts {
		if i < len(prev) {
			c -= prev[i]
		}
		delta[i] = c
		n += c
	}
	if n == 0 {
		return 0
	}
	want := n - n/100
	var seen uint64
	for i, c := range delta {
		if seen += c; seen >= want {
			upper := h.Buckets[i+1]
			if math.IsInf(upper, 1) {
				upper = h.Buckets[i]
			}
			return time.Duration(upper * float64(time.Second))
		}
	}
	return 0
}
