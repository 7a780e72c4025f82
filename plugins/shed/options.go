package shed

import (
	"fmt"
	"strconv"
	"time"
)

// Option configures New.
type Option func(*Shedder)

// MaxSchedLatency sheds while the scheduler's 99th-percentile latency is
// above d (0, the default, is off).
func MaxSchedLatency(d time.Duration) Option { return func(s *Shedder) { s.maxSched = d } }

// MaxHeapFraction sheds while the live heap is above f of GOMEMLIMIT (0,
// the default, is off; so is a process without a limit).
func MaxHeapFraction(f float64) Option { return func(s *Shedder) { s.maxHeap = f } }

// MaxGCFraction sheds while the garbage collector takes more than f of
// the CPU (0, the default, is off).
func MaxGCFraction(f float64) Option { return func(s *Shedder) { s.maxGC = f } }

// SampleInterval sets how often the signals are read
// (DefaultSampleInterval).
func SampleInterval(d time.Duration) Option { return func(s *Shedder) { s.interval = d } }

// WithSource replaces runtime/metrics as the source of the signals.
func WithSource(src Source) Option { return func(s *Shedder) { s.source = src } }

// RetryAfter sets the Retry-After of a shed request (DefaultRetryAfter;
// whole seconds, at least one).
func RetryAfter(d time.Duration) Option {
	return func(s *Shedder) {
		secs := int64(d / time.Second)
		if secs < 1 {
			s.fail(fmt.Errorf("shed.RetryAfter: %v is below a second", d))
		}
		s.retryAfter = []string{strconv.FormatInt(secs, 10)}
	}
}

// OnPressure replaces the 503 a shed request gets.
func OnPressure(fn PressureFunc) Option { return func(s *Shedder) { s.onPressure = fn } }

func (s *Shedder) fail(err error) {
	if s.err == nil {
		s.err = err
	}
}
