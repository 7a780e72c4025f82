package stack

import (
	"context"
	"time"

	"github.com/klauspost/compress/gzip"

	"github.com/burrow-go/burrow/app"
	"github.com/burrow-go/burrow/plugins/compress"
	"github.com/burrow-go/burrow/plugins/cors"
	"github.com/burrow-go/burrow/plugins/prometheus"
	"github.com/burrow-go/burrow/plugins/ratelimit"
	"github.com/burrow-go/burrow/plugins/secure"
)

// Burrow is the route on Burrow, behind its plugins registered on the
// root, and its request metrics.
type Burrow struct {
	Server  *app.Server
	Metrics *prometheus.Metrics
}

// NewBurrow assembles the Burrow stack and readies it; opts are the
// server's (a logger, no access log).
func NewBurrow(opts ...app.Option) (*Burrow, error) {
	s := app.New(opts...)
	m := prometheus.New()
	s.Register(m.Plugin())
	s.Register(cors.Plugin(cors.Origins(Origin)))
	s.Register(secure.Plugin())
	s.Register(ratelimit.Plugin(ratelimit.Limit(ratelimit.Policy{Name: "ip", Limit: PerIP, Window: time.Minute, Key: ratelimit.ByIP()})))
	s.Register(compress.Plugin(compress.GzipLevel(gzip.DefaultCompression), compress.Encodings(compress.Gzip)))
	if err := app.Get(s, Path, func(context.Context, struct{}) (Catalog, error) { return Answer, nil }); err != nil {
		return nil, err
	}
	if err := s.Ready(); err != nil {
		return nil, err
	}
	return &Burrow{Server: s, Metrics: m}, nil
}
